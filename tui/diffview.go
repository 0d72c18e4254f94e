package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
)

// diffTitle names a diff kind for a section header.
func diffTitle(d *inspect.Diff) string {
	switch d.Kind {
	case inspect.DiffStreamedFinal:
		return "streamed deltas vs final output"
	case inspect.DiffUpstreamClient:
		return "upstream vs client"
	case inspect.DiffExchanges:
		return "recorded vs replayed"
	}
	return d.Kind
}

// diffDoc is the Diff tab: the painted diffs, where each hunk header is,
// and the assembled text under them, whose lines are painted when shown.
type diffDoc struct {
	lines staticDoc
	// hunks holds the line of each hunk header, in order.
	hunks []int
	// text are the lines of the assembled text, after lines; tail follows.
	text []string
	tail staticDoc
	mark lipgloss.Style
	// width is the screen's width for a line of text: a longer one is cut
	// before it is painted (drawnHead); the doc is made again on resize.
	width int
}

func (dd *diffDoc) len() int { return len(dd.lines) + len(dd.text) + len(dd.tail) }

func (dd *diffDoc) line(i int) docLine {
	if i < len(dd.lines) {
		return dd.lines[i]
	}
	i -= len(dd.lines)
	if i < len(dd.text) {
		t := dd.text[i]
		return newLine(visibleTrail(drawnHead(t, dd.width), len(strings.TrimRight(t, " ")), txt(""), dd.mark, false)...)
	}
	return dd.tail[i-len(dd.text)]
}

// diffHunks returns the lines of the Diff tab's hunk headers.
func (m *model) diffHunks() []int {
	if dd, ok := m.doc(tabDiff).(*diffDoc); ok {
		return dd.hunks
	}
	return nil
}

// buildDiff paints inspect's diffs: every diff of the exchange shown, then
// the recorded-vs-replayed diff after an engine change, then the assembled
// text as it stands (which grows live while following).
func (m *model) buildDiff() *diffDoc {
	d, st := m.det, m.st
	v := d.view()
	if v.rep.WebSocket != nil {
		return m.buildSession()
	}
	var out staticDoc
	var hunks []int
	diffs := slices.Clone(v.rep.Diffs)
	if d.rp != nil && d.rp.cmp != nil {
		diffs = append(diffs, d.rp.cmp)
	}
	if e := v.rep.Error; e != "" {
		// What the provider said when it failed, first: the diffs of a
		// failed exchange rarely say why.
		out = append(out, newLine(sty("━━ the provider said  ", st.header), sty(clean(excerpt.Clip(e, maxSaid)), st.failText)))
	}
	if len(diffs) == 0 {
		out = append(out, newLine(sty("no diffs: only one side was recorded and the stream claims no final output", st.dim)))
	}
	for _, df := range diffs {
		title := fmt.Sprintf("━━ %s", diffTitle(df))
		if df.Equal {
			out = append(out, newLine(sty(title, st.header), sty(fmt.Sprintf("  identical (%s = %s)", df.A, df.B), st.okText)))
			continue
		}
		out = append(out, newLine(sty(title, st.header), sty("  "+units.Count(len(df.Hunks), "hunk")+"  ", st.bold),
			sty("--- "+df.A, st.del), txt("  "), sty("+++ "+df.B, st.add)))
		for hi := range df.Hunks {
			h := &df.Hunks[hi]
			head := newLine(sty(fmt.Sprintf("@@ hunk %d/%d · %s @@", hi+1, len(df.Hunks), hunkWhere(h)), st.hunkHead))
			head.hunk = len(hunks)
			head.ptr = h.At
			hunks = append(hunks, len(out))
			out = append(out, head)
			if d.split {
				out = append(out, m.splitHunk(h)...)
			} else {
				out = append(out, m.unifiedHunk(h)...)
			}
		}
	}
	dd := &diffDoc{hunks: hunks, mark: st.marker, width: m.w - 2}
	// The assembled text of the side clients received.
	if t := v.text; t != nil {
		out = append(out, newLine(), newLine(sty(fmt.Sprintf("━━ %s text, assembled (%d bytes)", t.side, t.bytes), st.header)))
		if t.omitted > 0 {
			out = append(out, newLine(sty(fmt.Sprintf("… %d earlier lines (the Timeline and Raw tabs hold every byte)", t.omitted), st.dim)))
		}
		dd.text = t.lines
		for _, tc := range t.toolCalls {
			dd.tail = append(dd.tail, newLine(sty("tool call ", st.boundary), txt(fmt.Sprintf("%s(%s)", clean(tc.Name), escapeInline(tc.Arguments)))))
		}
	}
	dd.lines = out
	return dd
}

// maxTextLines caps the assembled text shown under the diffs; its tail is
// what a live stream is adding. maxSaid caps the provider's error message
// shown above them, in bytes.
const (
	maxTextLines = 2000
	maxSaid      = 1000
)

// assembled is the text a side's stream assembles to, split into lines in
// the command that builds the view.
type assembled struct {
	side  tape.Side
	bytes int
	// lines are the last maxTextLines lines; omitted counts those before.
	lines     []string
	omitted   int
	toolCalls []protocol.ToolCall
}

// assembleText returns the assembled text of the side clients received
// (the last side of the report), or nil when no side was inspected.
func assembleText(rep *inspect.ExchangeReport) *assembled {
	if len(rep.Sides) == 0 {
		return nil
	}
	s := rep.Sides[len(rep.Sides)-1]
	text := s.Message.Text()
	a := &assembled{side: s.Side, bytes: len(text), lines: strings.Split(text, "\n")}
	if n := len(a.lines); n > maxTextLines {
		a.omitted, a.lines = n-maxTextLines, a.lines[n-maxTextLines:]
	}
	if len(s.Message.Choices) > 0 {
		a.toolCalls = s.Message.Choices[0].ToolCalls
	}
	return a
}

// hunkWhere says where a hunk began in the stream.
func hunkWhere(h *inspect.Hunk) string {
	where := fmt.Sprintf("a byte %d, b byte %d", h.AOff, h.BOff)
	if p := h.At; p != nil && p.Event >= 0 {
		where = fmt.Sprintf("%s event %d · chunk %d · byte %d · t=%s", p.Side, p.Event, p.Chunk, p.Off, units.Duration(p.T))
	}
	if r := h.Where(); r != "" {
		where += " · " + r
	}
	return where
}

// changedSpan returns the byte range of a that differs from b once their
// common prefix and suffix are set aside, on rune boundaries.
func changedSpan(a, b string) (int, int) {
	pre, suf := inspect.CommonAffixes(a, b)
	return pre, len(a) - suf
}

// diffRuns paints one diff line: its gutter, then the text with invisibles
// shown and the changed bytes emphasised (underlined when added, struck
// through when deleted).
func (m *model) diffRuns(l inspect.DiffLine, pair *inspect.DiffLine) []run {
	st := m.st
	base, emph := st.ctx, st.ctx
	switch l.Op {
	case "-":
		base, emph = st.del, st.delEmph
	case "+":
		base, emph = st.add, st.addEmph
	}
	runs := []run{sty(l.Op+" ", base)}
	if pair == nil || l.Op == " " {
		return append(runs, visibleRuns(l.Text, sty("", base), st.marker, false)...)
	}
	// Trailing spaces are those of the whole line, not of each piece.
	a, b := changedSpan(l.Text, pair.Text)
	trail := len(strings.TrimRight(l.Text, " "))
	runs = append(runs, visibleTrail(l.Text[:a], trail, sty("", base), st.marker, false)...)
	runs = append(runs, visibleTrail(l.Text[a:b], trail-a, sty("", emph), st.marker, false)...)
	return append(runs, visibleTrail(l.Text[b:], trail-b, sty("", base), st.marker, false)...)
}

func (m *model) unifiedHunk(h *inspect.Hunk) []docLine {
	pr := h.Pairs()
	var out []docLine
	for i, l := range h.Lines {
		var pair *inspect.DiffLine
		if pr[i] >= 0 {
			pair = &h.Lines[pr[i]]
		}
		dl := newLine(m.diffRuns(l, pair)...)
		dl.ptr = h.At
		out = append(out, dl)
	}
	return out
}

// splitHunk lays a hunk out side by side: context on both sides, deletions
// left and additions right, paired in order.
func (m *model) splitHunk(h *inspect.Hunk) []docLine {
	pr := h.Pairs()
	var out []docLine
	var dels, adds []int
	flush := func() {
		for k := range max(len(dels), len(adds)) {
			dl := newLine()
			dl.ptr = h.At
			if k < len(dels) {
				i := dels[k]
				dl.runs = m.diffRuns(h.Lines[i], pairOf(h, pr[i]))
			}
			if k < len(adds) {
				i := adds[k]
				dl.right = m.diffRuns(h.Lines[i], pairOf(h, pr[i]))
			} else {
				dl.right = []run{txt("")}
			}
			if dl.runs == nil {
				dl.runs = []run{txt("")}
			}
			out = append(out, dl)
		}
		dels, adds = dels[:0], adds[:0]
	}
	for i, l := range h.Lines {
		switch l.Op {
		case "-":
			dels = append(dels, i)
		case "+":
			adds = append(adds, i)
		default:
			flush()
			r := m.diffRuns(l, nil)
			dl := newLine(r...)
			dl.right = r
			dl.ptr = h.At
			out = append(out, dl)
		}
	}
	flush()
	return out
}

func pairOf(h *inspect.Hunk, i int) *inspect.DiffLine {
	if i < 0 {
		return nil
	}
	return &h.Lines[i]
}

// renderDocLine paints a doc line at width w, side by side when it has a
// right half.
func (m *model) renderDocLine(l docLine, w int) string {
	if l.right == nil {
		return padRight(paint(l.runs, w, m.search, m.st.match), w)
	}
	col := (w - 3) / 2
	left := padRight(paint(l.runs, col, m.search, m.st.match), col)
	right := paint(l.right, w-col-3, m.search, m.st.match)
	return padRight(left+m.st.dim.Render(" │ ")+right, w)
}
