package jsontext

import (
	"unicode/utf16"
	"unicode/utf8"
)

// AppendUnescaped appends the decoded text of a JSON string, s being what
// lies between its quotes, to dst. It decodes as gjson does: a surrogate
// escape followed by another \u escape is paired with it (U+FFFD, both
// consumed, when the pair is invalid), a lone one becomes U+FFFD. ok is
// false when an escape is invalid or a surrogate is not half of a valid
// pair, the cases where encoding/json decodes otherwise or fails; bytes
// that are not escapes are copied as they are, UTF-8 or not.
func AppendUnescaped[S ~string | ~[]byte](dst []byte, s S) ([]byte, bool) {
	dst, stop := appendUnescaped(dst, s)
	if stop == len(s) {
		return dst, true
	}
	return appendLossy(dst, s, stop), false
}

// appendLossy carries on decoding s as gjson does from stop, where
// appendUnescaped stopped: at a \u escape of a surrogate left alone or
// badly paired, or at an invalid escape (stop < 0), where it ends.
func appendLossy[S ~string | ~[]byte](dst []byte, s S, stop int) []byte {
	for stop >= 0 && stop < len(s) {
		r, n, _ := unescapeRune(s[stop+2:])
		dst = utf8.AppendRune(dst, r)
		s = s[stop+2+n:]
		dst, stop = appendUnescaped(dst, s)
	}
	return dst
}

// appendUnescaped decodes s as AppendUnescaped does up to the first escape
// that is invalid (stop is then -1) or a surrogate not half of a valid pair
// (stop is its position); stop is len(s) when all of s is decoded.
func appendUnescaped[S ~string | ~[]byte](dst []byte, s S) ([]byte, int) {
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			j := i + 1
			for j < len(s) && s[j] != '\\' {
				j++
			}
			dst = append(dst, s[i:j]...)
			i = j
			continue
		}
		if i+1 >= len(s) {
			return dst, -1
		}
		switch s[i+1] {
		case '"', '\\', '/':
			dst = append(dst, s[i+1])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, n, valid := unescapeRune(s[i+2:])
			switch {
			case n < 0:
				return dst, -1
			case !valid:
				return dst, i
			}
			dst = utf8.AppendRune(dst, r)
			i += 2 + n
			continue
		default:
			return dst, -1
		}
		i += 2
	}
	return dst, len(s)
}

// unescapeRune decodes the \u escape whose hex digits start s, and the one
// after it when the first is a surrogate, and returns the rune, the bytes
// they take and whether the rune is not a surrogate left alone or badly
// paired. n is -1 when the digits are not hex.
func unescapeRune[S ~string | ~[]byte](s S) (r rune, n int, ok bool) {
	r, valid := hex4(s, 0)
	if !valid {
		return 0, -1, false
	}
	if !utf16.IsSurrogate(r) {
		return r, 4, true
	}
	if len(s) < 10 || s[4] != '\\' || s[5] != 'u' {
		return utf8.RuneError, 4, false
	}
	r2, valid := hex4(s, 6)
	if !valid {
		return 0, -1, false
	}
	r = utf16.DecodeRune(r, r2)
	return r, 10, r != utf8.RuneError
}

// Unescape returns the decoded text of a JSON string that ScanString has
// checked, s being what lies between its quotes, as gjson decodes it.
func Unescape(s string) string {
	b, _ := AppendUnescaped(make([]byte, 0, len(s)), s)
	return string(b)
}

// hex4 decodes the four hex digits at s[i:i+4].
func hex4[S ~string | ~[]byte](s S, i int) (rune, bool) {
	if i < 0 || i+4 > len(s) {
		return 0, false
	}
	var r rune
	for j := i; j < i+4; j++ {
		c := s[j]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
