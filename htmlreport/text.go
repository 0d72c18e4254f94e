package htmlreport

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// piece is a run of text from a capture: plain text, or the visible escape
// (\u202e, \x00, \n) that stands for one character that would otherwise
// hide, reorder or corrupt what the page shows. The template draws markers
// in a styled span, so a marker never looks like the same text typed out.
type piece struct {
	Text string
	Mark bool
}

// pieces cuts s into plain runs and markers. With lines set, line feeds
// and tabs stay as they are (text shown in a pre block); otherwise they are
// markers too, and the result holds on one line.
func pieces(s string, lines bool) []piece {
	var out []piece
	for len(s) > 0 {
		i := firstMarked(s, lines)
		if i > 0 {
			out = append(out, piece{Text: s[:i]})
			s = s[i:]
			continue
		}
		r, n := utf8.DecodeRuneInString(s)
		out = append(out, piece{Text: marker(s[0], r, n), Mark: true})
		s = s[n:]
	}
	return out
}

// firstMarked returns the offset of the first character of s drawn as a
// marker, or len(s).
func firstMarked(s string, lines bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && !(lines && (c == '\n' || c == '\t')) || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if dangerous(r, n) {
			return i
		}
		i += n
	}
	return len(s)
}

// dangerous reports whether the non-ASCII rune r (n bytes long) is shown as
// a marker: a byte that is not UTF-8, a C1 control, a line or paragraph
// separator, or a format character (bidi overrides and isolates,
// zero-width characters, tags), all of which can hide or reorder text.
func dangerous(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1, r < 0xa0, r == 0x2028, r == 0x2029:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// marker returns the escape shown for the character r (n bytes, first byte
// b): \n, \r and \t by name, other ASCII controls and bytes that are not
// UTF-8 as \xNN, every other character as \uNNNN or \UNNNNNNNN.
func marker(b byte, r rune, n int) string {
	switch {
	case r == utf8.RuneError && n == 1:
		return `\x` + hex(uint64(b), 2)
	case r == '\n':
		return `\n`
	case r == '\r':
		return `\r`
	case r == '\t':
		return `\t`
	case r < 0x80:
		return `\x` + hex(uint64(r), 2)
	case r > 0xffff:
		return `\U` + hex(uint64(r), 8)
	}
	return `\u` + hex(uint64(r), 4)
}

func hex(v uint64, width int) string {
	h := strconv.FormatUint(v, 16)
	return strings.Repeat("0", max(0, width-len(h))) + h
}

// line is a text to show on one line: markers for line feeds and tabs.
type line string

// block is a text to show in a pre block: line feeds and tabs pass.
type block string

// clipped is a text cut to a budget, with what was left out.
type clipped struct {
	Text string
	// More counts the bytes left out after Text.
	More int
}

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) clipped {
	if len(s) <= n {
		return clipped{Text: s}
	}
	k := n
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return clipped{Text: s[:k], More: len(s) - k}
}

// clipLeft keeps at most the last n bytes of s, on a rune boundary, and
// says how many bytes before them were left out.
func clipLeft(s string, n int) (string, int) {
	if len(s) <= n {
		return s, 0
	}
	k := len(s) - n
	for k < len(s) && !utf8.RuneStart(s[k]) {
		k++
	}
	return s[k:], k
}

// prettyJSON returns body indented when it is one JSON value, else body
// itself and false. Key order and string contents are kept as they came.
func prettyJSON(body []byte) (string, bool) {
	t := bytes.TrimSpace(body)
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') || !json.Valid(t) {
		return string(body), false
	}
	var b bytes.Buffer
	if err := json.Indent(&b, t, "", "  "); err != nil {
		return string(body), false
	}
	return b.String(), true
}

// commas renders n with thousands separators: 56063 is "56,063".
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// commonAffixes returns the lengths of the common prefix of a and b and of
// the common suffix of what follows it, on rune boundaries of a:
// a[pre:len(a)-suf] is where a differs from b.
func commonAffixes(a, b string) (pre, suf int) {
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	for pre > 0 && pre < len(a) && !utf8.RuneStart(a[pre]) {
		pre--
	}
	ra, rb := a[pre:], b[min(pre, len(b)):]
	for suf < len(ra) && suf < len(rb) && ra[len(ra)-1-suf] == rb[len(rb)-1-suf] {
		suf++
	}
	for suf > 0 && !utf8.RuneStart(ra[len(ra)-suf]) {
		suf--
	}
	return pre, suf
}

// plural renders a count and a noun: "1 stall", "2 stalls".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
