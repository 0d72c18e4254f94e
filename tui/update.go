package tui

import (
	"sort"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/seam-dev/seam/tape"
)

// onKey handles a key press on whatever screen is up.
func (m *model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	if key.Matches(msg, k.Interrupt) {
		return tea.Interrupt
	}
	if m.input != inputNone {
		return m.onInputKey(msg)
	}
	m.status = ""
	if m.showHelp {
		if key.Matches(msg, k.Quit) {
			return tea.Quit
		}
		m.showHelp = false
		return nil
	}
	if m.det != nil && m.det.panel {
		return m.onPanelKey(msg)
	}
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.showHelp = true
		return nil
	case key.Matches(msg, k.Search):
		m.input, m.inputBuf = inputSearch, ""
		return nil
	case m.screen == screenSession && m.sess != nil:
		return m.onSessionKey(msg)
	case key.Matches(msg, k.Up):
		m.move(-1)
	case key.Matches(msg, k.Down):
		m.move(1)
	case key.Matches(msg, k.PgUp):
		m.move(-m.bodyHeight())
	case key.Matches(msg, k.PgDown) && !(m.screen == screenList && key.Matches(msg, k.Space)):
		m.move(m.bodyHeight())
	case key.Matches(msg, k.Top):
		m.move(-1 << 30)
	case key.Matches(msg, k.Bottom):
		m.move(1 << 30)
	case key.Matches(msg, k.Copy):
		return m.copySelection()
	case m.screen == screenList:
		return m.onListKey(msg)
	default:
		return m.onDetailKey(msg)
	}
	return nil
}

func (m *model) onListKey(msg tea.KeyPressMsg) tea.Cmd {
	k, l := m.keys, &m.list
	switch {
	case key.Matches(msg, k.Open):
		return m.open(false)
	case key.Matches(msg, k.Engine):
		return m.open(true)
	case key.Matches(msg, k.Group):
		m.toggleGroup()
	case key.Matches(msg, k.Fold):
		m.toggleFold()
	case key.Matches(msg, k.Session):
		m.openSession()
	case key.Matches(msg, k.Filter):
		m.input, m.inputBuf = inputFilter, l.filter
	case key.Matches(msg, k.Sort):
		l.sortBy = (l.sortBy + 1) % numSorts
		m.applyFilter()
		m.setStatus("sorted by " + sortNames[l.sortBy])
	case key.Matches(msg, k.Reverse):
		l.reverse = !l.reverse
		m.applyFilter()
	case key.Matches(msg, k.Next):
		m.jumpMatch(1)
	case key.Matches(msg, k.Prev):
		m.jumpMatch(-1)
	case key.Matches(msg, k.Follow):
		l.tail = !l.tail
		l.moved = true
		if l.tail {
			m.move(1 << 30)
			m.setStatus("following the newest exchange")
		}
	case key.Matches(msg, k.Clear):
		if l.filter != "" || m.search != "" {
			l.filter, l.where, m.search = "", nil, ""
			m.applyFilter()
		}
	}
	return nil
}

func (m *model) onDetailKey(msg tea.KeyPressMsg) tea.Cmd {
	k, d := m.keys, m.det
	switch {
	case key.Matches(msg, k.Clear) && m.search != "":
		m.search = ""
	case key.Matches(msg, k.Back):
		m.screen = screenList
		if d.fromSession && m.sess != nil {
			m.screen = screenSession
			m.refreshSession()
			m.clampSession()
		}
		m.det = nil
	case key.Matches(msg, k.NextTab):
		m.setTab((d.tab + 1) % numTabs)
	case key.Matches(msg, k.PrevTab):
		m.setTab((d.tab + numTabs - 1) % numTabs)
	case key.Matches(msg, k.Tab):
		n, _ := strconv.Atoi(msg.String())
		m.setTab(n - 1)
	case key.Matches(msg, k.Engine):
		d.panel = true
	case key.Matches(msg, k.Reset):
		return m.setEngine(d.recEngine)
	case key.Matches(msg, k.Next):
		m.next(1)
	case key.Matches(msg, k.Prev):
		m.next(-1)
	case key.Matches(msg, k.Open):
		m.enter()
	case d.tab == tabDiff && key.Matches(msg, k.View):
		d.split = !d.split
		d.docs[tabDiff] = nil
		d.cur[tabDiff], d.off[tabDiff] = 0, 0
	case d.tab == tabTimeline && key.Matches(msg, k.Side):
		switch d.tlSide {
		case "":
			d.tlSide = tape.Upstream
		case tape.Upstream:
			d.tlSide = tape.Client
		default:
			d.tlSide = ""
		}
		m.retimeline()
	case d.tab == tabTimeline && key.Matches(msg, k.Events):
		d.tlEvents = !d.tlEvents
		m.retimeline()
	}
	return nil
}

// retimeline rebuilds the timeline after a toggle, keeping the cursor near
// the same time.
func (m *model) retimeline() {
	d := m.det
	var t int64 = -1
	if tl, ok := m.doc(tabTimeline).(*timelineDoc); ok && d.cur[tabTimeline] < len(tl.rows) {
		t = tl.v.rows[tl.rows[d.cur[tabTimeline]]].t
	}
	d.docs[tabTimeline] = nil
	d.cur[tabTimeline] = 0
	if tl, ok := m.doc(tabTimeline).(*timelineDoc); ok {
		d.cur[tabTimeline] = sort.Search(len(tl.rows), func(i int) bool { return tl.v.rows[tl.rows[i]].t >= t })
	}
	m.clamp()
}

func (m *model) setTab(t int) {
	if t < 0 || t >= numTabs {
		return
	}
	m.det.tab = t
	m.clamp()
}

// open opens the exchange under the list cursor, with the engine panel up
// when panel is set.
func (m *model) open(panel bool) tea.Cmd {
	s, ok := m.selected()
	if !ok {
		return nil
	}
	k := exKey{s.file, s.ex}
	m.screen = screenDetail
	m.det = &detail{key: k, loading: true, panel: panel, tlEvents: false}
	return m.loadCmd(k)
}

// onInputKey edits the search or filter line.
func (m *model) onInputKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Cancel):
		m.input, m.inputErr = inputNone, ""
	case key.Matches(msg, k.Accept):
		switch m.input {
		case inputSearch:
			m.search = m.inputBuf
			m.input = inputNone
			if m.search != "" {
				m.jumpMatch(0)
			}
		case inputFilter:
			m.list.cursor = 0
			if err := m.setFilter(strings.TrimSpace(m.inputBuf)); err != nil {
				m.inputErr = err.Error()
				return nil
			}
			m.input, m.inputErr = inputNone, ""
		}
	case key.Matches(msg, k.Erase):
		if r := []rune(m.inputBuf); len(r) > 0 {
			m.inputBuf = string(r[:len(r)-1])
		}
	case key.Matches(msg, k.EraseAll):
		m.inputBuf = ""
	default:
		if msg.Text != "" {
			m.inputBuf += msg.Text
		}
	}
	return nil
}
