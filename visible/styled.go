package visible

import (
	"strings"
	"unicode/utf8"
)

// Styled returns s, text already drawn for a terminal and styled with SGR
// sequences (ESC [ parameters m, as lipgloss writes them), with every
// other escape sequence drawn as markers (␛ and what follows as text), and
// every control, bidi or other format character and every byte that is not
// UTF-8 drawn as [String] draws it. SGR sequences, line feeds and tabs
// pass, and so does every other character, markers included: Styled
// changes nothing in text already drawn with String, so it can check a
// whole screen as a last line of defence.
func Styled(s string) string {
	i := firstUnstyled(s)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i < len(s) {
		b.WriteString(s[:i])
		s = s[i:]
		r, n := utf8.DecodeRuneInString(s)
		b.WriteString(marker(s, r, n))
		s = s[n:]
		i = firstUnstyled(s)
	}
	b.WriteString(s)
	return b.String()
}

// firstUnstyled returns the offset of the first character of s that Styled
// draws as a marker, or len(s).
func firstUnstyled(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b:
			n := sgrLen(s[i:])
			if n == 0 {
				return i
			}
			i += n
		case c == '\n' || c == '\t':
			i++
		case c < 0x20 || c == 0x7f:
			return i
		case c < utf8.RuneSelf:
			i++
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if acts(r, n) {
				return i
			}
			i += n
		}
	}
	return len(s)
}

// sgrLen returns the length of the SGR sequence s starts with, or 0.
func sgrLen(s string) int {
	if len(s) < 3 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9' || c == ';' || c == ':':
		case c == 'm':
			return i + 1
		default:
			return 0
		}
	}
	return 0
}
