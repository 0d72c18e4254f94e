package tui

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/tape"
)

// listCols are the column widths of the list; 0 leaves a column out.
// names are the capture names as the capture column shows them.
type listCols struct {
	capture, ex, session, time, endpoint, model, status, outcome, ttfb, dur, events, badge, top int
	names                                                                                       []string
}

// colCache holds the content widths of the list's columns, grown row by
// row as rows and badges arrive (growCols), so no frame measures every row,
// and the capture names, made again when a capture joins.
type colCache struct {
	// want is each column's content width (its header's at least).
	want listCols
	init bool
	// caps is how many captures whole and short were made for: the
	// capture names whole and cut to where they differ; wantShort is the
	// width of the longest short one.
	caps         int
	whole, short []string
	wantShort    int
	// cut are the names cut to cutWidth cells (cutDistinct) for cutCaps
	// captures and the names they were cut from.
	cut      []string
	cutWidth int
	cutCaps  int
	cutFrom  []string
}

// growCols widens the columns to hold row i (an index into sums) as it
// now is. Widths never shrink: a row that got shorter leaves its column
// as it was.
func (m *model) growCols(i int) {
	c := m.initCols()
	w := &c.want
	s := &m.sums[i]
	w.ex = max(w.ex, len(strconv.Itoa(s.ex)))
	w.endpoint = max(w.endpoint, cells(s.requestLine()))
	w.outcome = max(w.outcome, len(resultLabel(s.status, s.outcome, true)))
	w.ttfb = max(w.ttfb, cells(units.Duration(s.ttfb())))
	w.dur = max(w.dur, cells(units.Duration(s.dur())))
	m.growBadgeCols(i)
}

// growBadgeCols widens the columns that depend on row i's badge (model,
// events, findings, top finding), when it arrives.
func (m *model) growBadgeCols(i int) {
	w := &m.initCols().want
	s := &m.sums[i]
	b := m.badges[exKey{s.file, s.ex}]
	w.model = max(w.model, cells(m.modelOf(i)))
	w.events = max(w.events, len(strconv.Itoa(b.events)))
	w.badge = max(w.badge, badgeWidth(b))
	if len(b.ids) > 0 {
		// (What the provider said takes the room the column has, none
		// of its own: a long message would push other columns out.)
		w.top = max(w.top, cells(clean(b.ids[0])))
	}
}

// topFinding is the list's top-finding column: the worst finding's id,
// and what the provider said when it failed.
func topFinding(b badge) string {
	top := clean(b.ids[0])
	if b.said != "" {
		top += ` "` + b.said + `"`
	}
	return top
}

// maxColumn bounds the width a list column is measured to: wider than any
// terminal, so that a URL of a megabyte is measured, and narrowed to fit,
// at the cost of one this wide.
const maxColumn = 1024

// cells is the width of s as a list column measures it, at most maxColumn.
func cells(s string) int {
	h, _ := head(s, maxColumn)
	return min(ansi.StringWidth(h), maxColumn)
}

// requestLine is the method and URL of an exchange as the screens show
// them, the URL cut past what a column can show.
func (s *exSummary) requestLine() string {
	u, _ := head(s.url, maxColumn)
	return strings.TrimSpace(s.method + " " + u)
}

// initCols starts the widths at the headers' widths, once.
func (m *model) initCols() *colCache {
	c := &m.cols
	if !c.init {
		c.want = listCols{ex: 1, endpoint: len("method endpoint"), model: len("model"), status: 3, outcome: len("outcome"),
			time: 8, ttfb: 7, dur: 7, events: len("evts"), badge: len("findings"), top: len("top finding")}
		c.init = true
	}
	return c
}

// measure returns the content widths of the list, the capture names made
// again when captures were added.
func (m *model) measure() *colCache {
	c := m.initCols()
	if c.caps != len(m.caps) {
		c.caps, c.whole, c.wantShort = len(m.caps), nil, 0
		for _, cs := range m.caps {
			c.whole = append(c.whole, clean(captureBase(cs.name)))
		}
		c.short = distinguish(c.whole)
		c.want.capture = len("capture")
		for i := range c.whole {
			c.want.capture = max(c.want.capture, ansi.StringWidth(c.whole[i]))
			c.wantShort = max(c.wantShort, ansi.StringWidth(c.short[i]))
		}
	}
	return c
}

// badgeWidth is the width of the findings badge badgeRuns draws.
func badgeWidth(b badge) int {
	n := 0
	for sev, c := range b.counts {
		if c > 0 {
			n += len(strconv.Itoa(c)) + 1
			if sev > 0 {
				n++ // the space after E and W counts
			}
		}
	}
	return max(n, 2)
}

// captureBase is a capture's file name without its directory and the
// .ndjson (and compressed .ndjson.zst) extension.
func captureBase(name string) string {
	base := filepath.Base(name)
	base = strings.TrimSuffix(base, tape.CompressedExt)
	return strings.TrimSuffix(base, ".ndjson")
}

// distinguish shortens names that share a long prefix to where they start
// to differ (with a few characters before it for context, and "…" for what
// was cut), so that captures named by their start time, such as
// seam-20261122T093428Z and seam-20261122T093512Z, stay apart in a narrow
// column. Names that share no long prefix are kept whole.
func distinguish(names []string) []string {
	out := slices.Clone(names)
	if len(names) < 2 {
		return out
	}
	pre := names[0]
	for _, n := range names[1:] {
		i := 0
		for i < len(pre) && i < len(n) && pre[i] == n[i] {
			i++
		}
		pre = pre[:i]
	}
	const context = 4
	cut := len(pre) - context
	for cut > 0 && !utf8.RuneStart(pre[cut]) {
		cut--
	}
	if cut < 4 {
		return out
	}
	for i, n := range names {
		out[i] = "…" + n[cut:]
	}
	return out
}

// cutDistinct cuts the names longer than width cells to width, with an
// ellipsis where they were cut, choosing one place for all of them so
// that names that differ stay apart: the middle when that keeps them
// apart (incid…k-off, incid…ck-on), else the split nearest it that does
// (class-f…-args, class-p…-args), else the middle.
func cutDistinct(names []string, width int) []string {
	if width < 3 {
		return names
	}
	cutAt := func(head int) []string {
		out := make([]string, len(names))
		for i, n := range names {
			w := ansi.StringWidth(n)
			if w <= width {
				out[i] = n
				continue
			}
			tail := width - 1 - head
			out[i] = ansi.Truncate(n, head, "") + "…" + ansi.TruncateLeft(n, w-tail, "")
		}
		return out
	}
	distinct := func(cut []string) bool {
		seen := make(map[string]string, len(cut))
		for i, c := range cut {
			if prev, ok := seen[c]; ok && prev != names[i] {
				return false
			}
			seen[c] = names[i]
		}
		return true
	}
	mid := (width - 1) - (width-1)/2
	for d := 0; d < width; d++ {
		for _, head := range []int{mid - d, mid + d} {
			if head >= 0 && head <= width-1 {
				if cut := cutAt(head); distinct(cut) {
					return cut
				}
			}
		}
	}
	return cutAt(mid)
}

// listColumns sizes the list's columns for width m.w: each as wide as its
// content (measured over every row), the optional ones (time, ttfb,
// events) left out while the rest do not fit, then the widest of the
// flexible ones (endpoint, capture, model, top finding) narrowed in turn
// down to their minimums; the top finding, last, takes the room left.
// Capture names are shown whole when they fit, else from where they
// differ.
func (m *model) listColumns() listCols {
	cc := m.measure()
	c := cc.want
	c.names = cc.whole
	if len(m.caps) < 2 {
		c.capture = 0
	}
	width := func() int {
		n := 2 // the cursor mark
		for _, v := range []int{c.capture, c.ex, c.session, c.time, c.endpoint, c.model, c.status, c.outcome, c.ttfb, c.dur, c.events, c.badge, c.top} {
			if v > 0 {
				n += v + 1
			}
		}
		return n - 1
	}
	// Whole capture names first; their distinguishing part when that is
	// all that fits.
	if c.capture > 0 && width() > m.w && cc.wantShort < c.capture {
		c.capture, c.names = max(cc.wantShort, len("capture")), cc.short
	}
	if m.list.group {
		// Session ids are s and 8 hex digits: "▾ s1a2b3c4d ×12".
		c.session = 15
	}
	for _, opt := range []*int{&c.time, &c.ttfb, &c.events} {
		if width() <= m.w {
			break
		}
		*opt = 0
	}
	flex := []struct {
		w   *int
		min int
	}{{&c.endpoint, 12}, {&c.top, 8}, {&c.model, 8}, {&c.capture, 8}, {&c.session, 11}}
	for over := width() - m.w; over > 0; over-- {
		var widest *int
		for _, f := range flex {
			if *f.w > f.min && (widest == nil || *f.w > *widest) {
				widest = f.w
			}
		}
		if widest == nil {
			break // the terminal is narrower than the minimums: render cuts
		}
		*widest--
	}
	if c.capture > 0 {
		if cc.cutWidth != c.capture || cc.cutCaps != len(c.names) || !slices.Equal(cc.cutFrom, c.names) {
			cc.cut, cc.cutWidth, cc.cutCaps, cc.cutFrom = cutDistinct(c.names, c.capture), c.capture, len(c.names), c.names
		}
		c.names = cc.cut
	}
	if slack := m.w - width(); slack > 0 && c.top > 0 {
		// The top finding is the last column: the room left is its own,
		// for what the provider said when it failed.
		c.top += slack
	}
	return c
}
