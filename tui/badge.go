package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/query"
	"github.com/seam-dev/seam/session"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/timing"
)

// Badges: what the list shows of an exchange once it was inspected in the
// background, one exchange at a time.

// badge is what the list shows of an exchange once it was inspected in the
// background, and what filters, the session grouping and the session view
// read of it.
type badge struct {
	rev    int
	counts [3]int // by inspect.Severity
	events int
	ids    []string
	model  string
	// protocol is the protocol inspect assembled the exchange by.
	protocol string
	// session places the exchange in its session (nil: no message
	// history); metrics are its timing figures.
	session *session.Ref
	metrics *timing.Metrics
	// tools names the tool calls clients got.
	tools []string
	// findings are the first maxBadgeFindings findings, for the session
	// view.
	findings []inspect.Finding
	// text is the searchable text free words of a filter look in, cut at
	// maxBadgeText bytes.
	text string
	// said is what the provider said when it failed, drawn for the
	// terminal and cut at maxBadgeSaid bytes.
	said string
}

// maxBadgeFindings and maxBadgeText bound what a badge keeps of an
// exchange, so a capture of many exchanges stays small in memory.
const (
	maxBadgeFindings = 20
	maxBadgeText     = 64 << 10
	maxBadgeSaid     = 200
)

// badgeCmd inspects the next exchange the list has no badge for, in the
// background, one at a time.
func (m *model) badgeCmd() tea.Cmd {
	if m.badging {
		return nil
	}
	for ; m.badgeNext < len(m.sums); m.badgeNext++ {
		s := &m.sums[m.badgeNext]
		k := exKey{s.file, s.ex}
		if b, ok := m.badges[k]; ok && b.rev == s.rev {
			continue
		}
		c := m.caps[s.file]
		if c.header == nil {
			continue // its header resets the cursor
		}
		m.badging = true
		m.badgeNext++
		r, _, _ := c.reader()
		name, hdr, lines, rev, sessions, live := c.name, c.hdr, s.lines, s.rev, m.sessions, c.follow
		return func() tea.Msg {
			capt, err := loadExchange(r, name, hdr, lines)
			if err != nil {
				return badgeMsg{key: k, b: badge{rev: rev}, err: err}
			}
			// A followed capture is being recorded: a side without its
			// end line is open, not interrupted.
			rep := inspect.Inspect(capt, inspect.Options{Sessions: sessions, Live: live})
			return badgeMsg{key: k, b: badgeOf(rev, capt, rep)}
		}
	}
	return nil
}

// badgeOf keeps what the list needs of an inspected exchange, in copies:
// a piece of a string of the capture would keep the exchange's bytes
// alive with the badge.
func badgeOf(rev int, capt *tape.Capture, rep *inspect.Report) badge {
	b := badge{rev: rev}
	if len(rep.Exchanges) == 0 {
		return b
	}
	x := rep.Exchanges[0]
	for _, f := range x.Findings {
		b.counts[min(max(int(f.Severity), 0), 2)]++
		b.ids = append(b.ids, strings.Clone(f.ID))
	}
	for _, f := range x.Findings[:min(len(x.Findings), maxBadgeFindings)] {
		f.ID, f.Message, f.Evidence = strings.Clone(f.ID), strings.Clone(f.Message), strings.Clone(f.Evidence)
		b.findings = append(b.findings, f)
	}
	// The model is drawn and filtered like the index's, which it stands in
	// for when the request names none: cleaned.
	b.events, b.model, b.session, b.metrics, b.protocol = x.Events, strings.Clone(clean(x.Model)), x.Session, x.Metrics, string(x.Protocol)
	b.said = strings.Clone(clean(excerpt.Clip(x.Error, maxBadgeSaid)))
	for _, name := range query.RowOf("", time.Time{}, 0, x, nil).Tools {
		b.tools = append(b.tools, strings.Clone(name))
	}
	if len(capt.Exchanges) > 0 {
		text := query.SearchText(capt.Exchanges[0], x)
		if len(text) > maxBadgeText {
			text = strings.ToValidUTF8(text[:maxBadgeText], "")
		}
		b.text = strings.Clone(text)
	}
	return b
}

// onBadge keeps the badge of an exchange inspected in the background (a
// failed one's says so), refilters or regroups the list when it reads
// badges, and starts the next.
func (m *model) onBadge(msg badgeMsg) tea.Cmd {
	m.badging = false
	if msg.err == nil {
		m.badges[msg.key] = msg.b
	} else {
		m.badges[msg.key] = badge{rev: msg.b.rev, events: -1}
	}
	// Rows paint their badge themselves; the rows shown and their
	// order change only when the sort, the filter or the grouping
	// reads badges. Grouping regroups the whole list, at most every
	// m.regroup.
	var regroup tea.Cmd
	if i, ok := m.byKey[msg.key]; ok {
		m.growBadgeCols(i)
	}
	if i, ok := m.byKey[msg.key]; ok && m.list.usesBadges() {
		if m.list.group {
			if !m.regrouping {
				m.regrouping = true
				regroup = tea.Tick(m.regroup, func(time.Time) tea.Msg { return regroupMsg{} })
			}
		} else {
			m.refilterOne(i)
		}
	}
	if m.sess != nil {
		m.refreshSession()
	}
	return tea.Batch(regroup, m.badgeCmd())
}
