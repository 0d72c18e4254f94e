package htmlreport

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/visible"
)

// pieces cuts s into plain runs and the markers of package visible (␛, ␍,
// ⟨U+202E⟩, ⟨\xFF⟩), each standing for one character that would otherwise
// hide, reorder or corrupt what the page shows; the template draws markers
// in a styled span, so a marker never looks like the same text typed out.
// With lines set, line feeds and tabs stay as they are (text shown in a pre
// block); otherwise they are markers too, and the result holds on one line.
func pieces(s string, lines bool) []visible.Piece {
	mode := visible.Line
	if lines {
		mode = visible.Lines
	}
	return slices.Collect(visible.Pieces(s, mode))
}

// clipped is a text cut to a budget, with what was left out.
type clipped struct {
	Text string
	// More counts the bytes left out after Text.
	More int
}

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) clipped {
	c, _ := excerpt.Cut(s, n)
	return clipped{Text: c, More: len(s) - len(c)}
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
