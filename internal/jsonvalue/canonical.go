package jsonvalue

import (
	"strings"
	"unicode/utf8"

	"github.com/seam-dev/seam/internal/jsontext"
)

// Canonical returns s, one JSON value (white space around it allowed),
// as Encode writes it once decoded: object keys sorted, no insignificant
// space, numbers as written. ok is false when s is not one value. A text
// already written that way (most tool calls' arguments) is recognised in
// one pass and returned as it is, where decoding and encoding it again
// took most of the time of a session's history.
func Canonical(s string) (string, bool) {
	s = strings.Trim(s, " \t\n\r") // JSON's white space
	if end, ok := canonicalAt(s, 0, 0); ok && end == len(s) {
		return s, true
	}
	v, ok := Decode(s)
	if !ok {
		return "", false
	}
	return Encode(v), true
}

// maxCanonicalDepth bounds how deep canonicalAt goes into nested values.
const maxCanonicalDepth = 64

// canonicalAt reports whether the value at s[i] is written as
// Encode would write it, and where it ends: no space, object
// keys in order with none twice, strings with no escape but \", \\, \n,
// \r and \t, valid UTF-8 without U+2028 or U+2029 (which Encode escapes),
// numbers as they are. It may say no to a canonical value (a key with an
// escape, one nested deeper than maxCanonicalDepth); Canonical then
// encodes it. depth is how deep s[i] is nested.
func canonicalAt(s string, i, depth int) (int, bool) {
	if i >= len(s) || depth > maxCanonicalDepth {
		return i, false
	}
	switch s[i] {
	case '{':
		return canonicalObject(s, i+1, depth+1)
	case '[':
		i++
		if i < len(s) && s[i] == ']' {
			return i + 1, true
		}
		for {
			end, ok := canonicalAt(s, i, depth+1)
			if !ok || end >= len(s) {
				return end, false
			}
			if s[end] == ']' {
				return end + 1, true
			}
			if s[end] != ',' {
				return end, false
			}
			i = end + 1
		}
	case '"':
		return canonicalString(s, i)
	case 't', 'f', 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if strings.HasPrefix(s[i:], lit) {
				return i + len(lit), true
			}
		}
		return i, false
	default:
		return jsontext.ScanNumber(s, i)
	}
}

// canonicalObject is canonicalAt for the members of an object, from s[i]
// after its opening brace.
func canonicalObject(s string, i, depth int) (int, bool) {
	if i < len(s) && s[i] == '}' {
		return i + 1, true
	}
	prev := ""
	for n := 0; ; n++ {
		if i >= len(s) || s[i] != '"' {
			return i, false
		}
		end, f, ok := jsontext.ScanString(s, i)
		key := s[min(i+1, end):max(end-1, i+1)]
		if !ok || f != 0 || n > 0 && key <= prev || end >= len(s) || s[end] != ':' {
			return end, false
		}
		prev = key
		if i, ok = canonicalAt(s, end+1, depth); !ok || i >= len(s) {
			return i, false
		}
		switch s[i] {
		case '}':
			return i + 1, true
		case ',':
			i++
		default:
			return i, false
		}
	}
}

// canonicalString is canonicalAt for the string at s[i].
func canonicalString(s string, i int) (int, bool) {
	end, f, ok := jsontext.ScanString(s, i)
	if !ok {
		return end, false
	}
	text := s[i+1 : end-1]
	if f&jsontext.NonASCII != 0 && (!utf8.ValidString(text) || strings.Contains(text, "\u2028") || strings.Contains(text, "\u2029")) {
		return end, false
	}
	if f&jsontext.Escaped != 0 {
		for j := 0; j < len(text); j++ {
			if text[j] != '\\' {
				continue
			}
			j++
			if c := text[j]; c != '"' && c != '\\' && c != 'n' && c != 'r' && c != 't' {
				return end, false
			}
		}
	}
	return end, true
}
