// Package visible shows text from captures and streams on a terminal
// without letting it act on the terminal.
//
// Everything seam prints comes from strangers: a capture in a bug report,
// a stream from any server, a URL a web page chose. A terminal obeys some
// of those bytes: ESC starts sequences that move the cursor, retitle the
// window or write the clipboard (OSC 52), C1 controls do the same in one
// byte, bidirectional overrides reorder what is shown, and zero-width
// characters hide text. [String] and [Text] draw each such character as a
// visible marker instead, and leave every other character as it is:
//
//	C0 controls        their control pictures: ␀ … ␟ (ESC is ␛, CR is ␍),
//	                   except line feed ↵ and tab ⇥
//	DEL                ␡
//	C1 controls,       ⟨U+XXXX⟩ (U+009B, U+202E, U+2066, U+200B, U+2028 …)
//	format characters
//	(bidi, zero-width),
//	line and paragraph
//	separators
//	bytes that are     ⟨\xNN⟩
//	not UTF-8
//
// The markers themselves (↵, ⇥, the control pictures U+2400–U+2421 and ⟨)
// are drawn as ⟨U+XXXX⟩ when the text holds them, so the rendering is
// reversible: two different strings never look the same.
package visible

import (
	"iter"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Mode says which characters pass through as they are.
type Mode uint8

// The modes.
const (
	// Line draws every control character, line feed and tab included: the
	// result stays on one line.
	Line Mode = iota
	// Lines lets line feeds and tabs through: for text of several lines.
	Lines
)

// String returns s drawn for one terminal line: every character that could
// act on the terminal, or hide or reorder text, shown as a marker.
func String(s string) string { return render(s, Line) }

// Text is [String] for text of several lines: line feeds and tabs pass.
func Text(s string) string { return render(s, Lines) }

func render(s string, m Mode) string {
	i := firstUnsafe(s, m)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for piece := range Pieces(s[i:], m) {
		b.WriteString(piece.Text)
	}
	return b.String()
}

// Piece is a part of a string cut by [Pieces]: plain text, or the marker
// that stands for one character.
type Piece struct {
	Text   string
	Marker bool
}

// Pieces cuts s into runs of plain text and markers, for renderers that
// style the markers. Joined, the pieces' texts make what [String] (mode
// Line) or [Text] (mode Lines) returns.
func Pieces(s string, m Mode) iter.Seq[Piece] {
	return func(yield func(Piece) bool) {
		for len(s) > 0 {
			i := firstUnsafe(s, m)
			if i > 0 {
				if !yield(Piece{Text: s[:i]}) {
					return
				}
				s = s[i:]
				continue
			}
			r, n := utf8.DecodeRuneInString(s)
			if !yield(Piece{Text: marker(s, r, n), Marker: true}) {
				return
			}
			s = s[n:]
		}
	}
}

// firstUnsafe returns the byte offset of the first character of s that is
// drawn as a marker, or len(s).
func firstUnsafe(s string, m Mode) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && !(m == Lines && (c == '\n' || c == '\t')) || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unsafeRune(r, n) {
			return i
		}
		i += n
	}
	return len(s)
}

// unsafeRune reports whether the non-ASCII rune r (n bytes long) is drawn
// as a marker.
func unsafeRune(r rune, n int) bool {
	switch r {
	case newlineMark, tabMark, open:
		return true // a marker, drawn escaped so that no text looks like one
	}
	return r >= pictures && r <= pictures+0x21 || acts(r, n)
}

// acts reports whether the non-ASCII rune r (n bytes long) may act on a
// terminal or hide or reorder text: a byte that is not UTF-8, a C1
// control, a line or paragraph separator, or a format character (bidi
// controls, zero-width characters, tags).
func acts(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1, r < 0xa0, r == 0x2028, r == 0x2029:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// The marker characters.
const (
	newlineMark = '↵'
	tabMark     = '⇥'
	pictures    = 0x2400 // U+2400 ␀ … U+241F ␟; U+2421 ␡
	open        = '⟨'
)

// marker returns the marker for the character r, n bytes at the start of s.
func marker(s string, r rune, n int) string {
	switch {
	case r == utf8.RuneError && n == 1:
		return `⟨\x` + hex2(s[0]) + `⟩`
	case r == '\n':
		return string(newlineMark)
	case r == '\t':
		return string(tabMark)
	case r < 0x20:
		return string(pictures + r)
	case r == 0x7f:
		return string(rune(pictures + 0x21))
	}
	h := strconv.FormatInt(int64(r), 16)
	if len(h) < 4 {
		h = strings.Repeat("0", 4-len(h)) + h
	}
	return "⟨U+" + strings.ToUpper(h) + "⟩"
}

func hex2(c byte) string {
	const digits = "0123456789ABCDEF"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}
