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
		// q, esc and ? close the help (the header says so); q does not
		// quit from here, so what was toggled is not lost. The arrows
		// scroll a help taller than the screen; other keys do nothing.
		switch {
		case key.Matches(msg, k.Quit), key.Matches(msg, k.Cancel), key.Matches(msg, k.Help):
			m.showHelp, m.helpOff = false, 0
		case key.Matches(msg, k.Up):
			m.helpOff = max(m.helpOff-1, 0)
		case key.Matches(msg, k.Down):
			m.helpOff++
		case key.Matches(msg, k.PgUp):
			m.helpOff = max(m.helpOff-m.bodyHeight(), 0)
		case key.Matches(msg, k.PgDown), key.Matches(msg, k.Space):
			m.helpOff += m.bodyHeight()
		}
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
		m.countInput()
		return nil
	case m.screen == screenSession && m.sess != nil:
		return m.onSessionKey(msg)
	case key.Matches(msg, k.Up):
		m.move(-1)
	case key.Matches(msg, k.Down):
		m.move(1)
	case key.Matches(msg, k.PgUp):
		m.move(-m.bodyHeight())
	case key.Matches(msg, k.PgDown) || (m.screen != screenList && key.Matches(msg, k.Space)):
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
		m.input, m.inputBuf, m.inputWas = inputFilter, l.filter, l.filter
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

// onInputKey edits the search or filter line. The filter applies as it is
// typed (esc puts the one before back); the search counts its matches as
// it is typed, and enter goes to the first.
func (m *model) onInputKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Cancel):
		if m.input == inputFilter && m.list.filter != m.inputWas {
			m.setFilter(m.inputWas) // it parsed when it was set
		}
		m.input, m.inputErr = inputNone, ""
		return nil
	case key.Matches(msg, k.Accept):
		switch m.input {
		case inputSearch:
			m.search = m.inputBuf
			m.input = inputNone
			if m.search != "" {
				m.jumpMatch(0)
			}
		case inputFilter:
			if err := m.typeFilter(m.inputBuf); err != nil {
				m.inputErr = err.Error()
				return nil
			}
			m.input, m.inputErr = inputNone, ""
		}
		return nil
	case key.Matches(msg, k.Erase):
		if r := []rune(m.inputBuf); len(r) > 0 {
			m.inputBuf = string(r[:len(r)-1])
		}
	case key.Matches(msg, k.EraseAll):
		m.inputBuf = ""
	default:
		if msg.Text == "" {
			return nil
		}
		m.inputBuf += msg.Text
	}
	switch m.input {
	case inputFilter:
		// What parses applies at once; a filter still being typed (model=)
		// leaves the last one that did, and the footer says why.
		m.inputErr = ""
		if err := m.typeFilter(m.inputBuf); err != nil {
			m.inputErr = err.Error()
		}
	case inputSearch:
		m.countInput()
	}
	return nil
}

// typeFilter applies the filter text typed to the list, the cursor back on
// the first row when the filter changed; a filter that does not parse
// changes nothing.
func (m *model) typeFilter(text string) error {
	text = strings.TrimSpace(text)
	if text == m.list.filter {
		return nil
	}
	if err := m.setFilter(text); err != nil {
		return err
	}
	m.list.cursor = 0
	m.placeCursor(exKey{}, false) // the newest row while following
	return nil
}

// countInput counts the matches of the search being typed, for the
// footer.
func (m *model) countInput() {
	m.inputMatches = -1
	if m.inputBuf != "" {
		m.inputMatches = m.countMatches(m.inputBuf)
	}
}
