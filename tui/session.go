package tui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/seam-dev/seam/internal/units"
)

// sessionView is the session screen: one session's turns in order, each
// with its findings.
type sessionView struct {
	id string
	// rows are the session's exchanges (indexes into sums) in turn order,
	// whatever the list's filter.
	rows []int
	// cur is the turn under the cursor (an index into rows) and off the
	// first line shown.
	cur, off int
}

// openSession shows the session of the exchange under the list cursor.
func (m *model) openSession() {
	s, ok := m.selected()
	if !ok {
		return
	}
	i := m.byKey[exKey{s.file, s.ex}]
	id, _ := m.sessionOf(i)
	if id == "" {
		m.setStatus("this exchange is in no session (no message history, or not inspected yet)")
		return
	}
	m.sess = &sessionView{id: id}
	m.refreshSession()
	m.sess.cur = max(slices.Index(m.sess.rows, i), 0)
	m.screen = screenSession
	m.clampSession()
}

// refreshSession lists the session's exchanges again, as badges arrive.
func (m *model) refreshSession() {
	v := m.sess
	v.rows = v.rows[:0]
	for i := range m.sums {
		if id, _ := m.sessionOf(i); id == v.id {
			v.rows = append(v.rows, i)
		}
	}
	slices.SortStableFunc(v.rows, func(a, b int) int {
		_, ta := m.sessionOf(a)
		_, tb := m.sessionOf(b)
		return ta - tb
	})
	v.cur = min(v.cur, max(len(v.rows)-1, 0))
}

// onSessionKey handles a key on the session screen.
func (m *model) onSessionKey(msg tea.KeyPressMsg) tea.Cmd {
	k, v := m.keys, m.sess
	switch {
	case key.Matches(msg, k.Up):
		v.cur--
	case key.Matches(msg, k.Down):
		v.cur++
	case key.Matches(msg, k.PgUp):
		v.cur -= max(m.bodyHeight()/3, 1)
	case key.Matches(msg, k.PgDown):
		v.cur += max(m.bodyHeight()/3, 1)
	case key.Matches(msg, k.Top):
		v.cur = 0
	case key.Matches(msg, k.Bottom):
		v.cur = len(v.rows) - 1
	case key.Matches(msg, k.Next):
		m.jumpMatch(1)
		return nil
	case key.Matches(msg, k.Prev):
		m.jumpMatch(-1)
		return nil
	case key.Matches(msg, k.Clear) && m.search != "":
		m.search = ""
		return nil
	case key.Matches(msg, k.Open):
		if v.cur < len(v.rows) {
			s := m.sums[v.rows[v.cur]]
			k := exKey{s.file, s.ex}
			m.screen = screenDetail
			m.det = &detail{key: k, loading: true, fromSession: true}
			return m.loadCmd(k)
		}
	case key.Matches(msg, k.Back), key.Matches(msg, k.Session):
		m.screen, m.sess = screenList, nil
		return nil
	}
	m.clampSession()
	return nil
}

// clampSession keeps the cursor on a turn and its first line on screen.
func (m *model) clampSession() {
	v := m.sess
	v.cur = min(max(v.cur, 0), max(len(v.rows)-1, 0))
	lines, first := m.sessionLines()
	h := m.bodyHeight()
	at := 0
	if v.cur < len(first) {
		at = first[v.cur]
	}
	end := len(lines)
	if v.cur+1 < len(first) {
		end = first[v.cur+1]
	}
	// The turn's lines, or as many as fit from its first.
	if end-v.off > h {
		v.off = min(at, end-h)
	}
	if at < v.off {
		v.off = at
	}
	v.off = min(max(v.off, 0), max(len(lines)-h, 0))
}

// sessionScreen draws the session screen without its footer.
func (m *model) sessionScreen() []string {
	v, st := m.sess, m.st
	title := []run{sty("seam ", st.title), sty("session "+v.id, st.bold), sty("  "+m.sessionTotals(), st.dim)}
	out := []string{paint(title, m.w, "", st.match), st.header.Render(fit("  turns in order, each with its findings · enter opens a turn · esc back", m.w))}
	if m.showHelp {
		return append(out, m.helpView(m.bodyHeight())...)
	}
	lines, first := m.sessionLines()
	cur := -1
	if v.cur < len(first) {
		cur = first[v.cur]
	}
	for i := v.off; i < len(lines) && len(out) < m.bodyHeight()+2; i++ {
		line := paint(lines[i], m.w-2, m.search, st.match)
		if i == cur {
			out = append(out, "▌ "+st.selected.Render(padRight(ansi.Strip(line), m.w-2)))
			continue
		}
		out = append(out, "  "+line)
	}
	return out
}

// sessionLines renders every turn of the session: a line for the turn and
// one per finding. first holds each turn's first line.
func (m *model) sessionLines() (lines [][]run, first []int) {
	st := m.st
	for _, i := range m.sess.rows {
		s := &m.sums[i]
		b := m.badges[exKey{s.file, s.ex}]
		first = append(first, len(lines))
		_, turn := m.sessionOf(i)
		runs := []run{sty(fmt.Sprintf("turn %-3d", turn), st.bold), txt(fmt.Sprintf(" ex %-4d ", s.ex))}
		if len(m.caps) > 1 {
			runs = append(runs, sty(clean(captureBase(m.caps[s.file].name))+" ", st.dim))
		}
		stStyle := st.okText
		if s.status >= 400 || (s.outcome != "" && !s.outcome.Success()) {
			stStyle = st.failText
		}
		runs = append(runs, txt(s.requestLine()+"  "), sty(resultLabel(s.status, s.outcome, false), stStyle),
			sty("  ttfb "+units.Duration(s.ttfb())+"  dur "+units.Duration(s.dur()), st.dim))
		if len(b.tools) > 0 {
			runs = append(runs, txt("  tools "+clean(strings.Join(b.tools, ", "))))
		}
		if b.session != nil && b.session.Parent != nil && b.session.Parent.Ex != s.ex-1 {
			runs = append(runs, sty("  extends "+clean(b.session.Parent.String()), st.dim))
		}
		runs = append(runs, txt("  "))
		runs = append(runs, m.badgeRuns(b, b.rev == s.rev)...)
		lines = append(lines, runs)
		for _, f := range b.findings {
			lines = append(lines, append([]run{txt("     "), m.severityRun(f.Severity), txt(" "), sty(clean(f.ID), st.bold), txt("  ")},
				visibleRuns(f.Message, txt(""), st.marker, true)...))
		}
		if n := b.counts[0] + b.counts[1] + b.counts[2]; n > len(b.findings) {
			lines = append(lines, []run{sty(fmt.Sprintf("     … %d more findings: enter opens the exchange", n-len(b.findings)), st.dim)})
		}
	}
	if len(lines) == 0 {
		lines = append(lines, []run{sty("no turns", st.dim)})
	}
	return lines, first
}

// sessionTotals sums the session's turns as the badges know them: turns,
// tool calls, tokens, the time from its first request to its last end,
// rewrites and failures.
func (m *model) sessionTotals() string {
	var tools, in, out, rewrites, failed int
	var start, end time.Time
	for _, i := range m.sess.rows {
		s := &m.sums[i]
		b := m.badges[exKey{s.file, s.ex}]
		tools += len(b.tools)
		if b.metrics != nil {
			in, out = in+b.metrics.TokensIn, out+b.metrics.TokensOut
		}
		for _, id := range b.ids {
			if strings.HasPrefix(id, "session.") {
				rewrites++
			}
		}
		if s.status >= 400 || (s.outcome != "" && !s.outcome.Success()) {
			failed++
		}
		if h := m.caps[s.file].header; h != nil && !h.Started.IsZero() {
			t0 := h.Started.Add(time.Duration(s.reqT))
			if start.IsZero() || t0.Before(start) {
				start = t0
			}
			if s.endT >= 0 {
				if t1 := h.Started.Add(time.Duration(s.endT)); t1.After(end) {
					end = t1
				}
			}
		}
	}
	parts := []string{units.Count(len(m.sess.rows), "turn"), units.Count(tools, "tool call")}
	if in > 0 || out > 0 {
		parts = append(parts, fmt.Sprintf("tokens in %d out %d", in, out))
	}
	if !start.IsZero() && !end.IsZero() {
		parts = append(parts, units.Duration(int64(end.Sub(start))))
	}
	if rewrites > 0 {
		parts = append(parts, units.Count(rewrites, "rewrite"))
	}
	if failed > 0 {
		parts = append(parts, strconv.Itoa(failed)+" failed")
	}
	return strings.Join(parts, " · ")
}
