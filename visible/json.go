package visible

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// EncodeJSON encodes v as seam prints JSON: without HTML escaping,
// indented by indent with every line after the first starting with prefix
// (indent "" for one line), a newline after it, and written safe to print
// (JSON). An error is encoding/json's.
func EncodeJSON(v any, prefix, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent(prefix, indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return JSON(b.Bytes()), nil
}

// JSON returns the encoded JSON document b with every character a
// terminal may act on, or that hides or reorders text, written as a \u
// escape: DEL, C1 controls, bidi and other format characters, line and
// paragraph separators. encoding/json escapes the C0 controls itself but
// writes these as they are; escaped, the document means the same and is
// safe to print. Such characters can only occur inside JSON strings, where
// the escape is equivalent. b is returned as it is when it holds none.
func JSON(b []byte) []byte {
	i := firstActing(b)
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i < len(b) {
		out = append(out, b[:i]...)
		b = b[i:]
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			out = append(out, `\ufffd`...) // not UTF-8: not valid JSON either
		} else if r > 0xffff {
			r -= 0x10000
			out = fmt.Appendf(out, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		} else {
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		b = b[n:]
		i = firstActing(b)
	}
	return append(out, b...)
}

// firstActing returns the offset of the first DEL or non-ASCII character
// of b that acts on a terminal, or len(b).
func firstActing(b []byte) int {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if acts(r, n) {
			return i
		}
		i += n
	}
	return len(b)
}
