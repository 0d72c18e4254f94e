package jsstring

import "strings"

// Trim trims s as JavaScript's String.prototype.trim does: WhiteSpace and
// LineTerminator code points at either end, U+FEFF included, U+0085 not
// (JavaScript does not count NEL as white space, where Go's
// strings.TrimSpace does).
func Trim(s string) string {
	return strings.TrimFunc(s, isSpace)
}

// TrimBytes is Trim for a byte slice: a subslice of b, without copying,
// when both ends are ASCII; a copy when a multi-byte rune is at an end.
func TrimBytes(b []byte) []byte {
	for len(b) > 0 && asciiSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && asciiSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	if len(b) > 0 && (b[0] >= 0x80 || b[len(b)-1] >= 0x80) {
		return []byte(Trim(string(b)))
	}
	return b
}

// isSpace reports whether JavaScript's trim removes r: ECMAScript's
// WhiteSpace (tab, vertical tab, form feed, space, no-break space, U+FEFF
// and the Unicode space separators) and LineTerminator (LF, CR, U+2028,
// U+2029).
func isSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

func asciiSpace(c byte) bool {
	switch c {
	case '\t', '\n', '\v', '\f', '\r', ' ':
		return true
	}
	return false
}
