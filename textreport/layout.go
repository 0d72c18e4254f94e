package textreport

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/visible"
)

// quoteClip quotes the first n bytes of s, saying how many bytes it has
// when it had to cut.
func quoteClip(s string, n int) string {
	if len(s) <= n {
		return strconv.Quote(s)
	}
	return strconv.Quote(excerpt.Clip(s, n)) + " (" + units.Count(len(s), "byte") + ")"
}

// clipCount is excerpt.Clip saying how many bytes the whole has when it
// cuts.
func clipCount(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return excerpt.Clip(s, n) + " (" + units.Count(len(s), "byte") + ")"
}

// writeItems writes items joined by " · " after first, breaking lines at
// textWidth between items only, every further line indented three columns
// past first.
func writeItems(w io.Writer, first string, items []string) {
	indent := strings.Repeat(" ", columns(first)+3)
	line, col := first, columns(first)
	for i, it := range items {
		n := columns(it)
		switch {
		case i == 0:
		case col+3+n > textWidth:
			fmt.Fprintln(w, line+" ·")
			line, col = indent, len(indent)
		default:
			line += " · "
			col += 3
		}
		line += it
		col += n
	}
	fmt.Fprintln(w, line)
}

// columns counts the runes of s that are not part of an ANSI colour
// sequence (the report's own: ESC [ ... m), a column each.
func columns(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			if j := strings.IndexByte(s[i:], 'm'); j >= 0 {
				i += j + 1
				continue
			}
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return n
}

// writeWrapped writes text after first, wrapped to textWidth with every
// further line starting with indent.
func writeWrapped(w io.Writer, first, text, indent string) {
	fmt.Fprint(w, first)
	writeWrappedAt(w, utf8.RuneCountInString(first), text, indent)
}

// writeWrappedAt continues a line already col columns wide: it writes
// text word by word, breaking before a word that would pass textWidth (a
// longer word stands alone) and starting each further line with indent,
// and ends the last line.
func writeWrappedAt(w io.Writer, col int, text, indent string) {
	start := col
	for _, word := range strings.Fields(text) {
		n := utf8.RuneCountInString(word)
		if col > start && col+1+n > textWidth {
			fmt.Fprintf(w, "\n%s", indent)
			col = utf8.RuneCountInString(indent)
			start = col
		} else if col > start {
			fmt.Fprint(w, " ")
			col++
		}
		fmt.Fprint(w, word)
		col += n
	}
	fmt.Fprintln(w)
}

// more returns "1 more line", "2 more lines".
func more(n int, noun string) string {
	return strings.Replace(units.Count(n, noun), " ", " more ", 1)
}

// orDash draws s (from a capture) for the terminal, or "-" when empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return visible.String(s)
}
