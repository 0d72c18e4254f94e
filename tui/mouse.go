package tui

import (
	tea "charm.land/bubbletea/v2"
)

// onClick selects what was clicked: a list row (a second click opens it),
// a tab, or a line.
func (m *model) onClick(p tea.Mouse) tea.Cmd {
	if p.Button != tea.MouseLeft || m.showHelp || m.screen == screenSession {
		return nil
	}
	if m.screen == screenList {
		top := 2 + m.bannerLines() // title, banner, column header
		row := p.Y - top + m.list.offset
		if p.Y >= top && row < len(m.list.rows) {
			if row == m.list.cursor {
				return m.open(false)
			}
			m.list.cursor, m.list.moved = row, true
			m.clamp()
		}
		return nil
	}
	d := m.det
	if d.panel {
		return nil
	}
	if p.Y == 1 {
		x := 0
		for i, name := range tabNames {
			w := len(m.tabLabel(i, name)) + 1
			if p.X >= x && p.X < x+w {
				m.setTab(i)
				return nil
			}
			x += w
		}
		return nil
	}
	if p.Y >= 3 && p.Y < 3+m.bodyHeight() {
		d.cur[d.tab] = d.off[d.tab] + p.Y - 3
		m.clamp()
	}
	return nil
}
