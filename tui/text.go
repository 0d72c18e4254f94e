package tui

import (
	"slices"
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/visible"
)

// run is a piece of a line with one style. Lines are built as runs so that
// search matches can be painted over any styling before the line is cut to
// the screen width.
type run struct {
	text string
	st   lipgloss.Style
	// plain runs are painted without a style (faster, and the default).
	plain bool
}

func txt(s string) run                    { return run{text: s, plain: true} }
func sty(s string, st lipgloss.Style) run { return run{text: s, st: st} }

// paint renders runs, painting every case-insensitive occurrence of query
// with the match style, and cuts the result to width cells. Runs longer
// than a line can show are cut first (see head), so a line of a megabyte
// costs what a line of the screen's width does.
func paint(runs []run, width int, query string, match lipgloss.Style) string {
	cut := false
	if width > 0 {
		runs, cut = headRuns(runs, width)
	}
	var plain strings.Builder
	for _, r := range runs {
		plain.WriteString(r.text)
	}
	matches := findAll(plain.String(), query)
	var b strings.Builder
	pos, mi := 0, 0
	for _, r := range runs {
		s := r.text
		for len(s) > 0 {
			// Skip matches that ended before this point.
			for mi < len(matches) && matches[mi][1] <= pos {
				mi++
			}
			cut := len(s)
			in := false
			if mi < len(matches) {
				m := matches[mi]
				switch {
				case m[0] <= pos:
					in = true
					cut = min(cut, m[1]-pos)
				case m[0] < pos+len(s):
					cut = m[0] - pos
				}
			}
			piece := s[:cut]
			switch {
			case in:
				st := match
				if !r.plain {
					st = r.st.Inherit(match).Reverse(true)
				}
				b.WriteString(st.Render(piece))
			case r.plain:
				b.WriteString(piece)
			default:
				b.WriteString(r.st.Render(piece))
			}
			pos += cut
			s = s[cut:]
		}
	}
	out := b.String()
	if width > 0 && (cut || ansi.StringWidth(out) > width) {
		out = ansi.Truncate(out, width-1, "") + "…"
	}
	return out
}

// maxCellBytes is how many bytes of a string head keeps per cell it may
// show: more than any character of one cell takes, combining marks aside.
const maxCellBytes = 16

// head returns the start of s that can fill width cells, and whether s
// went on: s itself when it is short, else at most (width+1)·maxCellBytes
// bytes of it, cut on a rune boundary. Measuring, cutting and styling the
// head instead of s keeps the cost of a line bounded by the screen, however
// long the text from the capture.
func head(s string, width int) (string, bool) {
	return excerpt.Cut(s, (max(width, 0)+1)*maxCellBytes)
}

// headRuns is head for runs: the runs that can fill width cells, the last
// one cut, and whether any text was left out.
func headRuns(runs []run, width int) ([]run, bool) {
	left := (width + 1) * maxCellBytes
	for i, r := range runs {
		if len(r.text) <= left {
			left -= len(r.text)
			continue
		}
		out := slices.Clone(runs[:i+1])
		out[i].text, _ = excerpt.Cut(r.text, left)
		return out, true
	}
	return runs, false
}

// plainOf returns the text of runs without styles.
func plainOf(runs []run) string {
	var b strings.Builder
	for _, r := range runs {
		b.WriteString(r.text)
	}
	return b.String()
}

// findAll returns the byte ranges of the ASCII-case-insensitive occurrences
// of q in s.
func findAll(s, q string) [][2]int {
	if q == "" {
		return nil
	}
	ls, lq := lowerASCII(s), lowerASCII(q)
	var out [][2]int
	for i := 0; ; {
		j := strings.Index(ls[i:], lq)
		if j < 0 {
			return out
		}
		out = append(out, [2]int{i + j, i + j + len(lq)})
		i += j + len(lq)
	}
}

// containsFold reports whether s contains q, ignoring ASCII case.
func containsFold(s, q string) bool {
	return strings.Contains(lowerASCII(s), lowerASCII(q))
}

// lowerASCII lowers A-Z only, so byte offsets stay aligned with s.
func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// clean returns a string from a capture or a stream drawn for one line of
// the terminal: every character that could act on the terminal, or hide
// or reorder text, shown as a marker (see package visible). Every such
// string the TUI draws goes through it, or through visibleRuns.
func clean(s string) string { return visible.String(s) }

// visibleRuns turns text into runs in which the markers package visible
// draws for control, format and non-UTF-8 characters (␛ ESC, ␍ CR, ⇥ tab,
// ⟨U+202E⟩, ⟨\xFF⟩, ...) get the marker style and the rest gets base.
// inline draws a line feed as ↵ (a line break inside a one-line
// preview); otherwise as ␊ (the end of a raw line). Trailing spaces are
// shown as ·.
func visibleRuns(s string, base run, mark lipgloss.Style, inline bool) []run {
	return visibleTrail(s, len(strings.TrimRight(s, " ")), base, mark, inline)
}

// visibleTrail is visibleRuns for a piece of a line: spaces at byte trail
// of s and after are the line's trailing spaces (trail may lie past the
// end of s, when the line goes on after the piece, or before its start).
func visibleTrail(s string, trail int, base run, mark lipgloss.Style, inline bool) []run {
	trail = min(max(trail, 0), len(s))
	var out []run
	marks := false // the last run holds markers: the next one joins it
	for p := range visible.Pieces(s[:trail], visible.Line) {
		if !p.Marker {
			r := base
			r.text = p.Text
			out, marks = append(out, r), false
			continue
		}
		if !inline && p.Text == "↵" {
			p.Text = "␊"
		}
		if marks {
			out[len(out)-1].text += p.Text
			continue
		}
		out, marks = append(out, sty(p.Text, mark)), true
	}
	if rest := s[trail:]; rest != "" {
		if strings.Trim(rest, " ") == "" {
			out = append(out, sty(strings.Repeat("·", len(rest)), mark))
		} else {
			out = append(out, visibleTrail(rest, len(rest), base, mark, inline)...)
		}
	}
	return out
}

// drawnHead returns the start of s that, drawn with visible markers,
// fills more than width cells, or s when it is no wider. A line from a
// capture is cut with it before its runs are made each frame, so that a
// line of a megabyte, or of a megabyte of control characters (a marker
// each), costs what a screen's width does.
func drawnHead(s string, width int) string {
	s, _ = head(s, width)
	cells, off := 0, 0
	for p := range visible.Pieces(s, visible.Line) {
		if p.Marker {
			_, n := utf8.DecodeRuneInString(s[off:])
			off += n
			cells += ansi.StringWidth(p.Text)
		} else {
			off += len(p.Text)
			cells += ansi.StringWidth(p.Text)
		}
		if cells > width {
			return s[:off]
		}
	}
	return s
}

// escapeInline renders text on one line with visible markers, for
// previews and evidence.
func escapeInline(s string) string {
	return plainOf(visibleRuns(s, txt(""), lipgloss.Style{}, true))
}

// padRight pads a styled string with spaces to width cells.
func padRight(s string, width int) string {
	if w := ansi.StringWidth(s); w < width {
		return s + strings.Repeat(" ", width-w)
	}
	return s
}

// fit cuts a plain string to width cells with an ellipsis, then pads it.
func fit(s string, width int) string {
	if width <= 0 {
		return ""
	}
	s, cut := head(s, width)
	if cut || ansi.StringWidth(s) > width {
		s = ansi.Truncate(s, width-1, "") + "…"
	}
	return padRight(s, width)
}
