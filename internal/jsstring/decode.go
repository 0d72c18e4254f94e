package jsstring

import (
	"strings"
	"unicode/utf8"
)

// Decode returns the text JavaScript's TextDecoder (the WHATWG Encoding
// Standard's UTF-8 decoder, which every JavaScript SDK runs on a stream's
// bytes) gives for the bytes of s: each maximal subpart of an ill-formed
// sequence becomes one U+FFFD, as the Unicode Standard recommends (Python's
// "replace" does the same). Go's strings.ToValidUTF8 replaces a whole run of
// bad bytes with one U+FFFD and encoding/json one per byte; both differ.
// Valid s is returned as it is, without copying.
func Decode(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString("\uFFFD")
			i += maximalSubpart(s[i:])
			continue
		}
		b.WriteString(s[i : i+n])
		i += n
	}
	return b.String()
}

// maximalSubpart returns the length of the maximal subpart at the start of
// s, which does not begin with a well-formed sequence: its lead byte and
// the continuation bytes that could still have completed it (Unicode Table
// 3-7 narrows the second byte after E0, ED, F0 and F4), at least 1.
func maximalSubpart(s string) int {
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch c := s[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c == 0xF4:
		need, hi = 3, 0x8F
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	default:
		return 1
	}
	n := 1
	for n <= need && n < len(s) && s[n] >= lo && s[n] <= hi {
		lo, hi = 0x80, 0xBF
		n++
	}
	return n
}
