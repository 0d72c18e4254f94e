package tui

import (
	"slices"
	"strconv"
)

// groupPlace is where a row of the grouped list stands in its session.
type groupPlace struct {
	// id is the session id, "" for an exchange in no session (yet).
	id          string
	first, last bool
	// turns counts the session's exchanges the filter lets through; turn
	// is this one's turn in the session.
	turns, turn int
	folded      bool
}

// sessionOf returns the session id and turn of exchange i (an index into
// sums), once the background inspection placed it; "" before, or for a
// request without a message history.
func (m *model) sessionOf(i int) (string, int) {
	s := &m.sums[i]
	if b, ok := m.badges[exKey{s.file, s.ex}]; ok && b.session != nil {
		return b.session.ID, b.session.Turn
	}
	return "", 0
}

// groupRows orders sorted rows session by session: each session where its
// first row stands in the sort, its exchanges together in turn order; an
// exchange in no session stands alone. A folded session shows its first
// turn only. It records each row's place in list.groups.
func (m *model) groupRows(rows []int) []int {
	l := &m.list
	l.groups = make(map[int]groupPlace, len(rows))
	type group struct {
		id      string
		members []int
	}
	var order []*group
	byID := map[string]*group{}
	for _, i := range rows {
		id, _ := m.sessionOf(i)
		g := byID[id]
		if g == nil || id == "" {
			g = &group{id: id}
			order = append(order, g)
			if id != "" {
				byID[id] = g
			}
		}
		g.members = append(g.members, i)
	}
	out := rows[:0]
	for _, g := range order {
		slices.SortStableFunc(g.members, func(a, b int) int {
			_, ta := m.sessionOf(a)
			_, tb := m.sessionOf(b)
			return ta - tb
		})
		folded := g.id != "" && l.folded[g.id]
		for k, i := range g.members {
			_, turn := m.sessionOf(i)
			l.groups[i] = groupPlace{id: g.id, first: k == 0, last: k == len(g.members)-1, turns: len(g.members), turn: turn, folded: folded}
			if folded && k > 0 {
				continue
			}
			out = append(out, i)
		}
	}
	return out
}

// groupLabel is the session column of a grouped row: the session and its
// size on its first row (▸ folded, ▾ open), the turn on the others.
func groupLabel(p groupPlace) string {
	switch {
	case p.id == "":
		return ""
	case p.first && p.turns == 1:
		return "· " + p.id
	case p.first && p.folded:
		return "▸ " + p.id + " ×" + strconv.Itoa(p.turns)
	case p.first:
		return "▾ " + p.id + " ×" + strconv.Itoa(p.turns)
	case p.last:
		return "  └ turn " + strconv.Itoa(p.turn)
	}
	return "  ├ turn " + strconv.Itoa(p.turn)
}

// toggleGroup turns the session grouping on or off.
func (m *model) toggleGroup() {
	l := &m.list
	l.group = !l.group
	if l.folded == nil {
		l.folded = map[string]bool{}
	}
	m.applyFilter()
	if l.group {
		m.setStatus("grouped by session: space folds a session, T shows its turns")
	} else {
		m.setStatus("one row per exchange")
	}
}

// toggleFold folds or unfolds the session of the row under the cursor.
func (m *model) toggleFold() {
	l := &m.list
	if !l.group {
		m.setStatus("t groups the list by session first")
		return
	}
	s, ok := m.selected()
	if !ok {
		return
	}
	id := l.groups[m.byKey[exKey{s.file, s.ex}]].id
	if id == "" {
		m.setStatus("this exchange is in no session")
		return
	}
	l.folded[id] = !l.folded[id]
	m.applyFilter()
	// Stay on the session: on its first row once folded.
	for j, r := range l.rows {
		if p := l.groups[r]; p.id == id && p.first {
			l.cursor = j
			break
		}
	}
	m.clamp()
}
