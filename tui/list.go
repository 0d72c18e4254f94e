package tui

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/query"
	"github.com/seam-dev/seam/tape"
)

// Sort orders of the exchange list.
const (
	sortEx = iota
	sortDur
	sortTTFB
	sortFindings
	sortModel
	sortStatus
	numSorts
)

var sortNames = [numSorts]string{"ex", "duration", "ttfb", "findings", "model", "status"}

// listState is the exchange list's cursor, filter and order.
type listState struct {
	rows   []int // indexes into model.sums, filtered and sorted
	cursor int
	offset int
	// filter is the filter as typed and where its parsed form (nil when
	// empty).
	filter  string
	where   *query.Filter
	sortBy  int
	reverse bool
	// group lists the exchanges session by session, turn by turn; folded
	// holds the sessions shown as their first turn only, and groups says
	// where each row stands in its session.
	group  bool
	folded map[string]bool
	groups map[int]groupPlace
	// tail keeps the cursor on the newest exchange while following.
	tail bool
	// moved is set once the user moved the cursor; until then it stays on
	// the first row while exchanges arrive.
	moved bool
}

// applyFilter recomputes the visible rows, keeping the cursor on the same
// exchange.
func (m *model) applyFilter() {
	l := &m.list
	var keep exKey
	hadSel := l.cursor < len(l.rows)
	if hadSel {
		s := m.sums[l.rows[l.cursor]]
		keep = exKey{s.file, s.ex}
	}
	l.rows = l.rows[:0]
	for i := range m.sums {
		if m.matches(i) {
			l.rows = append(l.rows, i)
		}
	}
	slices.SortFunc(l.rows, m.order)
	if l.group {
		l.rows = m.groupRows(l.rows)
	}
	m.placeCursor(keep, hadSel)
}

// refilterOne updates the visible rows after exchange i (an index into
// sums) changed in a way only the filter and sort see, such as its badge:
// the row leaves the list and, when it matches, goes back in at its place.
// The other rows keep their order, so this costs no sort.
func (m *model) refilterOne(i int) {
	l := &m.list
	var keep exKey
	hadSel := l.cursor < len(l.rows)
	if hadSel {
		s := m.sums[l.rows[l.cursor]]
		keep = exKey{s.file, s.ex}
	}
	if l.group {
		m.applyFilter()
		return
	}
	if j := slices.Index(l.rows, i); j >= 0 {
		l.rows = slices.Delete(l.rows, j, j+1)
	}
	if m.matches(i) {
		j, _ := slices.BinarySearchFunc(l.rows, i, m.order)
		l.rows = slices.Insert(l.rows, j, i)
	}
	m.placeCursor(keep, hadSel)
}

// order compares two rows in the list's order; ties are broken by capture
// and exchange, so it is total.
func (m *model) order(a, b int) int {
	c := m.compare(a, b)
	if m.list.reverse {
		c = -c
	}
	return c
}

// placeCursor puts the cursor back on the exchange keep after the rows
// changed (or on the first or newest row, as the list follows).
func (m *model) placeCursor(keep exKey, hadSel bool) {
	l := &m.list
	switch {
	case l.tail && len(l.rows) > 0:
		l.cursor = len(l.rows) - 1
	case !l.moved:
		l.cursor = 0
	case hadSel:
		for i, r := range l.rows {
			if s := m.sums[r]; s.file == keep.file && s.ex == keep.ex {
				l.cursor = i
				break
			}
		}
	}
	m.clamp()
}

// usesBadges reports whether the rows shown or their order depend on the
// background inspection: a findings or model sort (the model may come from
// the inspected body), the session grouping, or a filter term on what only
// inspection knows (findings, tools, text, sessions, metrics, the model).
func (l *listState) usesBadges() bool {
	if l.sortBy == sortFindings || l.sortBy == sortModel || l.group {
		return true
	}
	return l.where.NeedsText() || l.where.Uses("model", "protocol", "finding", "severity", "tool", "text", "session", "turn",
		"events", "gap.p50", "gap.p99", "gap.max", "stalls", "tokens.in", "tokens.out", "tps")
}

// compare orders two summaries by the list's sort key, then by capture (in
// the order of Options.Paths, a directory's files by name) and exchange
// number.
func (m *model) compare(a, b int) int {
	sa, sb := &m.sums[a], &m.sums[b]
	c := 0
	switch m.list.sortBy {
	case sortDur:
		c = cmp.Compare(sb.dur(), sa.dur())
	case sortTTFB:
		c = cmp.Compare(sb.ttfb(), sa.ttfb())
	case sortFindings:
		ba, bb := m.badges[exKey{sa.file, sa.ex}], m.badges[exKey{sb.file, sb.ex}]
		c = cmp.Compare(bb.counts[2], ba.counts[2])
		if c == 0 {
			c = cmp.Compare(bb.counts[1], ba.counts[1])
		}
	case sortModel:
		c = cmp.Compare(m.modelOf(a), m.modelOf(b))
	case sortStatus:
		c = cmp.Compare(sb.status, sa.status)
	}
	if c == 0 && sa.file != sb.file {
		c = cmp.Compare(m.rank[sa.file], m.rank[sb.file])
	}
	if c == 0 {
		c = cmp.Compare(sa.ex, sb.ex)
	}
	return c
}

func (m *model) modelOf(i int) string {
	s := &m.sums[i]
	if s.model != "" {
		return s.model
	}
	return m.badges[exKey{s.file, s.ex}].model
}

// setFilter parses text as the list's filter (inspect's filter language)
// and applies it; a filter that does not parse is refused and the list
// keeps its filter.
func (m *model) setFilter(text string) error {
	f, err := query.ParseFilter(text)
	if err != nil {
		return err
	}
	m.list.filter, m.list.where = text, f
	m.applyFilter()
	return nil
}

// matches applies the list's filter to exchange i (an index into sums).
func (m *model) matches(i int) bool {
	if m.list.where.Empty() {
		return true
	}
	return m.list.where.Match(m.rowOf(i))
}

// rowOf is what the filter reads of exchange i: the index's columns, and
// what the background inspection found once it has.
func (m *model) rowOf(i int) *query.Row {
	s := &m.sums[i]
	r := &query.Row{Capture: m.caps[s.file].name, Ex: s.ex, Method: s.method, URL: s.url, Model: m.modelOf(i),
		Status: s.status, Outcome: s.outcome, TTFB: s.ttfb(), Dur: s.dur()}
	r.Endpoint, _, _ = strings.Cut(s.url, "?")
	if !strings.HasPrefix(r.Endpoint, "/") {
		// A forward-proxy recording's URL starts with its host.
		if j := strings.IndexByte(r.Endpoint, '/'); j > 0 {
			r.Host, r.Endpoint = r.Endpoint[:j], r.Endpoint[j:]
		}
	}
	if h := m.caps[s.file].header; h != nil && !h.Started.IsZero() {
		r.Time = h.Started.Add(time.Duration(s.reqT))
	}
	b, ok := m.badges[exKey{s.file, s.ex}]
	if !ok || b.rev != s.rev || b.events < 0 {
		return r
	}
	r.Inspected, r.Findings, r.Tools, r.Metrics, r.Events, r.Protocol = true, b.ids, b.tools, b.metrics, b.events, b.protocol
	for sev := 2; sev >= 0; sev-- {
		if b.counts[sev] > 0 {
			r.Worst = inspect.Severity(sev)
			break
		}
	}
	if b.session != nil {
		r.Session, r.Turn = b.session.ID, b.session.Turn
	}
	r.Text = func() string { return b.text }
	return r
}

// rowText is the searchable text of a list row, for / in the list.
func (m *model) rowText(i int) string {
	s := &m.sums[i]
	b := m.badges[exKey{s.file, s.ex}]
	session := ""
	if b.session != nil {
		session = b.session.ID
	}
	return strings.Join([]string{
		filepath.Base(m.caps[s.file].name), strconv.Itoa(s.ex), s.method, s.url, m.modelOf(i),
		strconv.Itoa(s.status), string(s.outcome), session, strings.Join(b.ids, " "),
	}, " ")
}

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
	if slack := m.w - width(); slack > 0 && c.top > 0 {
		// The top finding is the last column: the room left is its own,
		// for what the provider said when it failed.
		c.top += slack
	}
	return c
}

// resultLabel says how an exchange ended, for the list: "failed" for an
// HTTP failure (status 4xx or 5xx, beside it in the list) whose stream
// ended as recorded, else its outcome.
func resultLabel(status int, o tape.Outcome, wide bool) string {
	if status >= 400 && (o == "" || o.Success()) {
		return "failed"
	}
	return outcomeLabel(o, wide)
}

// outcomeLabel shortens an outcome for the list.
func outcomeLabel(o tape.Outcome, wide bool) string {
	if wide {
		return string(o)
	}
	switch o {
	case tape.ClientClosedAfterDone:
		return "closed"
	case tape.ClientAborted:
		return "aborted"
	case tape.UpstreamError:
		return "upst-err"
	case tape.RecorderShutdown:
		return "seam-cut"
	case tape.RecorderError:
		return "seam-err"
	case "":
		return "…"
	}
	return string(o)
}

// listView renders the exchange list into height lines.
func (m *model) listView(height int) []string {
	l := &m.list
	c := m.listColumns()
	st := m.st
	sep := " "
	head := "  "
	if c.capture > 0 {
		head += fit("capture", c.capture) + sep
	}
	head += fit("#", c.ex) + sep
	if c.session > 0 {
		head += fit("session", c.session) + sep
	}
	if c.time > 0 {
		head += fit("time", c.time) + sep
	}
	head += fit("method endpoint", c.endpoint) + sep + fit("model", c.model) + sep +
		fit("st", c.status) + sep + fit("outcome", c.outcome) + sep
	if c.ttfb > 0 {
		head += fit("ttfb", c.ttfb) + sep
	}
	head += fit("dur", c.dur) + sep
	if c.events > 0 {
		head += fit("evts", c.events) + sep
	}
	head += fit("findings", c.badge) + sep + fit("top finding", c.top)
	lines := []string{st.header.Render(fit(head, m.w))}
	if len(l.rows) == 0 {
		msg := "no exchanges yet"
		switch {
		case len(m.caps) == 0 && len(m.dirs) > 0:
			msg = "waiting for captures in " + m.waitingFor() + ": new *.ndjson and *.ndjson.zst files show here as they are written"
		case len(m.sums) > 0:
			msg = fmt.Sprintf("no exchange matches filter %q (f to change, esc to clear)", l.filter)
		case !m.allScanned():
			msg = "indexing…"
		}
		lines = append(lines, st.dim.Render("  "+msg))
	}
	for i := l.offset; i < len(l.rows) && len(lines) < height; i++ {
		lines = append(lines, m.listRow(l.rows[i], c, i == l.cursor))
	}
	return lines
}

func (m *model) listRow(idx int, c listCols, selected bool) string {
	s := &m.sums[idx]
	st := m.st
	k := exKey{s.file, s.ex}
	b, inspected := m.badges[k]
	sep := " "
	when := "-"
	if h := m.caps[s.file].header; h != nil && !h.Started.IsZero() {
		when = h.Started.Add(time.Duration(s.reqT)).Format("15:04:05")
	}
	status := "-"
	if s.status > 0 {
		status = strconv.Itoa(s.status)
	}
	evts := "-"
	if inspected && b.rev == s.rev && b.events >= 0 {
		evts = strconv.Itoa(b.events)
	}
	mark := "  "
	if selected {
		mark = "▸ "
	}
	var runs []run
	runs = append(runs, txt(mark))
	if c.capture > 0 {
		runs = append(runs, sty(fit(c.names[s.file], c.capture)+sep, st.dim))
	}
	runs = append(runs, txt(fit(strconv.Itoa(s.ex), c.ex)+sep))
	if c.session > 0 {
		runs = append(runs, sty(fit(groupLabel(m.list.groups[idx]), c.session)+sep, st.dim))
	}
	if c.time > 0 {
		runs = append(runs, sty(fit(when, c.time)+sep, st.dim))
	}
	runs = append(runs,
		txt(fit(s.requestLine(), c.endpoint)+sep),
		txt(fit(m.modelOf(idx), c.model)+sep),
	)
	stStyle := st.okText
	if s.status >= 400 || (s.outcome != "" && !s.outcome.Success()) {
		stStyle = st.failText
	}
	runs = append(runs,
		sty(fit(status, c.status)+sep, stStyle),
		sty(fit(resultLabel(s.status, s.outcome, c.outcome > 10), c.outcome)+sep, stStyle),
	)
	if c.ttfb > 0 {
		runs = append(runs, txt(fit(units.Duration(s.ttfb()), c.ttfb)+sep))
	}
	runs = append(runs, txt(fit(units.Duration(s.dur()), c.dur)+sep))
	if c.events > 0 {
		runs = append(runs, txt(fit(evts, c.events)+sep))
	}
	current := inspected && b.rev == s.rev
	badge := m.badgeRuns(b, current)
	bw := 0
	for _, r := range badge {
		bw += ansi.StringWidth(r.text)
	}
	runs = append(runs, badge...)
	runs = append(runs, txt(strings.Repeat(" ", max(c.badge-bw, 0))+sep))
	if current && len(b.ids) > 0 && c.top > 0 {
		topStyle := st.dim
		switch {
		case b.counts[2] > 0:
			topStyle = st.errBadge
		case b.counts[1] > 0:
			topStyle = st.warnBadge
		}
		runs = append(runs, sty(fit(topFinding(b), c.top), topStyle))
	}
	line := paint(runs, m.w, m.search, st.match)
	if selected {
		line = st.selected.Render(padRight(ansi.Strip(line), m.w))
	}
	return line
}

// badgeRuns renders the findings badge: counts by severity with a letter
// each (E, W, I), "ok" when clean, "…" while not inspected yet.
func (m *model) badgeRuns(b badge, ok bool) []run {
	st := m.st
	if !ok {
		return []run{sty("…", st.dim)}
	}
	if b.events < 0 {
		return []run{sty("?", st.dim)}
	}
	var out []run
	if b.counts[2] > 0 {
		out = append(out, sty(fmt.Sprintf("E%d ", b.counts[2]), st.errBadge))
	}
	if b.counts[1] > 0 {
		out = append(out, sty(fmt.Sprintf("W%d ", b.counts[1]), st.warnBadge))
	}
	if b.counts[0] > 0 {
		out = append(out, sty(fmt.Sprintf("I%d", b.counts[0]), st.infoBadge))
	}
	if len(out) == 0 {
		out = append(out, sty("ok", st.okText))
	}
	return out
}

// allScanned reports whether every capture was indexed to its end once.
func (m *model) allScanned() bool {
	for _, c := range m.caps {
		if !c.done && c.err == nil {
			return false
		}
	}
	return true
}

// selected returns the summary under the list cursor.
func (m *model) selected() (*exSummary, bool) {
	l := &m.list
	if l.cursor < 0 || l.cursor >= len(l.rows) {
		return nil, false
	}
	return &m.sums[l.rows[l.cursor]], true
}
