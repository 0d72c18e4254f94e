package tui

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/seam-dev/seam/inspect"
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

// diffDoc paints inspect's diffs: every diff of the exchange shown, then
// the recorded-vs-replayed diff after an engine change, then the assembled
// text as it stands (which grows live while following).
func (m *model) diffDoc() doc {
	d, st := m.det, m.st
	v := d.view()
	var out staticDoc
	d.hunks = d.hunks[:0]
	diffs := slices.Clone(v.rep.Diffs)
	if d.rp != nil && d.rp.cmp != nil {
		diffs = append(diffs, d.rp.cmp)
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
		out = append(out, newLine(sty(title, st.header), sty(fmt.Sprintf("  %d hunk(s)  ", len(df.Hunks)), st.bold),
			sty("--- "+df.A, st.del), txt("  "), sty("+++ "+df.B, st.add)))
		for hi := range df.Hunks {
			h := &df.Hunks[hi]
			head := newLine(sty(fmt.Sprintf("@@ hunk %d/%d · %s @@", hi+1, len(df.Hunks), hunkWhere(h)), st.hunkHead))
			head.hunk = len(d.hunks)
			head.ptr = h.At
			d.hunks = append(d.hunks, len(out))
			out = append(out, head)
			if d.split {
				out = append(out, m.splitHunk(h)...)
			} else {
				out = append(out, m.unifiedHunk(h)...)
			}
		}
	}
	// The assembled text of the side clients received.
	side := v.rep.Sides
	if len(side) > 0 {
		s := side[len(side)-1]
		text := s.Message.Text()
		out = append(out, newLine(), newLine(sty(fmt.Sprintf("━━ %s text, assembled (%d bytes)", s.Side, len(text)), st.header)))
		lines := strings.Split(text, "\n")
		if len(lines) > maxTextLines {
			out = append(out, newLine(sty(fmt.Sprintf("… %d earlier lines (the Timeline and Raw tabs hold every byte)", len(lines)-maxTextLines), st.dim)))
			lines = lines[len(lines)-maxTextLines:]
		}
		for _, l := range lines {
			out = append(out, newLine(visible(l, txt(""), st.marker, false)...))
		}
		if len(s.Message.Choices) > 0 {
			for _, tc := range s.Message.Choices[0].ToolCalls {
				out = append(out, newLine(sty("tool call ", st.boundary), txt(fmt.Sprintf("%s(%s)", tc.Name, escapeInline(tc.Arguments)))))
			}
		}
	}
	return out
}

// maxTextLines caps the assembled text shown under the diffs; its tail is
// what a live stream is adding.
const maxTextLines = 2000

// hunkWhere says where a hunk began in the stream.
func hunkWhere(h *inspect.Hunk) string {
	if h.At == nil || h.At.Event < 0 {
		return fmt.Sprintf("a byte %d, b byte %d", h.AOff, h.BOff)
	}
	p := h.At
	return fmt.Sprintf("%s event %d · chunk %d · byte %d · t=%s", p.Side, p.Event, p.Chunk, p.Off, fmtT(p.T))
}

// pairs returns, for each line of a hunk, the index of the line it pairs
// with for intra-line highlighting (the k-th "-" with the k-th "+"), or -1.
func pairs(lines []inspect.DiffLine) []int {
	out := make([]int, len(lines))
	var dels, adds []int
	for i, l := range lines {
		out[i] = -1
		switch l.Op {
		case "-":
			dels = append(dels, i)
		case "+":
			adds = append(adds, i)
		}
	}
	for k := range min(len(dels), len(adds)) {
		out[dels[k]], out[adds[k]] = adds[k], dels[k]
	}
	return out
}

// changedSpan returns the byte range of a that differs from b once their
// common prefix and suffix are set aside, on rune boundaries.
func changedSpan(a, b string) (int, int) {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	for p > 0 && p < len(a) && !utf8.RuneStart(a[p]) {
		p--
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	for s > 0 && !utf8.RuneStart(a[len(a)-s]) {
		s--
	}
	return p, len(a) - s
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
		return append(runs, visible(l.Text, sty("", base), st.marker, false)...)
	}
	a, b := changedSpan(l.Text, pair.Text)
	runs = append(runs, visible(l.Text[:a], sty("", base), st.marker, false)...)
	runs = append(runs, visible(l.Text[a:b], sty("", emph), st.marker, false)...)
	return append(runs, visible(l.Text[b:], sty("", base), st.marker, false)...)
}

func (m *model) unifiedHunk(h *inspect.Hunk) []docLine {
	pr := pairs(h.Lines)
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
	pr := pairs(h.Lines)
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
