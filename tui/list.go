package tui

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

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
