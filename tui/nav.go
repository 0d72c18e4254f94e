package tui

import (
	"fmt"
	"strconv"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/shape"
)

// bodyHeight is the number of lines of the scrolling body.
func (m *model) bodyHeight() int {
	if m.screen == screenList || m.screen == screenSession {
		return max(m.h-3-m.bannerLines(), 1) // title, banner, column header, footer
	}
	return max(m.h-4, 1) // title, tabs, engine line, footer
}

// bannerLines is how many lines the banner takes under the list's title.
func (m *model) bannerLines() int {
	if m.banner == "" {
		return 0
	}
	return 1
}

// move moves the cursor of the current screen by delta lines.
func (m *model) move(delta int) {
	if m.det != nil && m.det.panel {
		m.det.panelCur = min(max(m.det.panelCur+delta, 0), len(shape.Switches())-1)
		return
	}
	if m.screen == screenSession && m.sess != nil {
		m.sess.cur += delta
		m.clampSession()
		return
	}
	if m.screen == screenList {
		l := &m.list
		l.cursor += delta
		l.moved = true
		l.tail = l.tail && delta > 0
		m.clamp()
		return
	}
	d := m.det
	d.cur[d.tab] += delta
	if d.tab == tabTimeline || d.tab == tabDiff {
		d.tail = delta > 0 && d.cur[d.tab] >= m.doc(d.tab).len()-1 && m.live(d.key)
	}
	m.clamp()
}

// clamp keeps cursors in range and on screen.
func (m *model) clamp() {
	h := m.bodyHeight()
	if m.screen == screenSession && m.sess != nil {
		m.clampSession()
		return
	}
	if m.screen == screenList || m.det == nil {
		l := &m.list
		l.cursor = min(max(l.cursor, 0), max(len(l.rows)-1, 0))
		l.offset = scrollTo(l.offset, l.cursor, h, len(l.rows))
		return
	}
	d := m.det
	n := m.doc(d.tab).len()
	t := d.tab
	d.cur[t] = min(max(d.cur[t], 0), max(n-1, 0))
	d.off[t] = scrollTo(d.off[t], d.cur[t], h, n)
}

// scrollTo returns an offset that keeps cursor visible in a window of h
// lines over n lines, with a little context.
func scrollTo(off, cursor, h, n int) int {
	margin := min(2, h/4)
	if cursor < off+margin {
		off = cursor - margin
	}
	if cursor >= off+h-margin {
		off = cursor - h + margin + 1
	}
	return min(max(off, 0), max(n-h, 0))
}

// next moves to the next (dir 1) or previous (-1) search match when a
// search is active, else to the next hunk (Diff) or finding (Findings).
func (m *model) next(dir int) {
	if m.search != "" {
		m.jumpMatch(dir)
		return
	}
	d := m.det
	switch d.tab {
	case tabDiff:
		hunks := m.diffHunks()
		if len(hunks) == 0 {
			m.setStatus("no hunks: the texts are identical")
			return
		}
		cur := d.cur[tabDiff]
		target := -1
		if dir > 0 {
			for _, h := range hunks {
				if h > cur {
					target = h
					break
				}
			}
			if target < 0 {
				target = hunks[0]
			}
		} else {
			for i := len(hunks) - 1; i >= 0; i-- {
				if hunks[i] < cur {
					target = hunks[i]
					break
				}
			}
			if target < 0 {
				target = hunks[len(hunks)-1]
			}
		}
		d.cur[tabDiff] = target
		// Show the hunk from its header down.
		d.off[tabDiff] = max(target-1, 0)
		m.clamp()
	case tabFindings:
		doc := m.doc(tabFindings)
		cur := doc.line(min(d.cur[tabFindings], max(doc.len()-1, 0)))
		for i := d.cur[tabFindings] + dir; i >= 0 && i < doc.len(); i += dir {
			if l := doc.line(i); l.finding >= 0 && l.finding != cur.finding {
				// Land on the first line of that finding.
				for i > 0 && doc.line(i-1).finding == l.finding {
					i--
				}
				d.cur[tabFindings] = i
				m.clamp()
				return
			}
		}
	case tabTimeline:
		// The next row a finding points at.
		tl, ok := m.doc(tabTimeline).(*timelineDoc)
		if !ok {
			return
		}
		for i := d.cur[tabTimeline] + dir; i >= 0 && i < len(tl.rows); i += dir {
			r := tl.v.rows[tl.rows[i]]
			k := chunkKey(r.side, r.idx)
			if r.event {
				k = evKey(r.side, r.idx)
			}
			if tl.v.flagged[k] {
				d.cur[tabTimeline], d.tail = i, false
				m.clamp()
				return
			}
		}
		m.setStatus("no more rows with findings")
	default:
		m.move(dir)
	}
}

// jumpMatch moves to the next line containing the search text (dir 0: the
// first match from the cursor on) and says which match it is of how many,
// or that there is none.
func (m *model) jumpMatch(dir int) {
	if m.search == "" {
		return
	}
	set, cur := m.matchSet(m.search)
	n := len(set)
	step, start := dir, *cur
	if dir == 0 {
		step, start = 1, start-1
	}
	for k := 1; k <= n; k++ {
		i := ((start+k*step)%n + n) % n
		if !set[i] {
			continue
		}
		*cur = i
		switch m.screen {
		case screenSession:
			m.clampSession()
		case screenList:
			m.list.moved = true
			m.clamp()
		default:
			m.clamp()
		}
		m.setStatus(fmt.Sprintf("match %d of %d for %s (n/N: next/previous, esc: clear)", count(set[:i])+1, count(set), strconv.Quote(m.search)))
		return
	}
	m.setStatus("no match for " + strconv.Quote(m.search))
}

// matchSet says, for each line the search looks through on the current
// screen (list rows, the open tab's lines, or a session's turns), whether
// it contains q, and returns the screen's cursor over them.
func (m *model) matchSet(q string) ([]bool, *int) {
	switch {
	case m.screen == screenSession && m.sess != nil:
		lines, first := m.sessionLines()
		set := make([]bool, len(first))
		for t := range first {
			end := len(lines)
			if t+1 < len(first) {
				end = first[t+1]
			}
			for _, l := range lines[first[t]:end] {
				if containsFold(plainOf(l), q) {
					set[t] = true
					break
				}
			}
		}
		return set, &m.sess.cur
	case m.screen == screenList || m.det == nil:
		set := make([]bool, len(m.list.rows))
		for i, r := range m.list.rows {
			set[i] = containsFold(m.rowText(r), q)
		}
		return set, &m.list.cursor
	}
	d := m.det
	doc := m.doc(d.tab)
	set := make([]bool, doc.len())
	for i := range set {
		l := doc.line(i)
		set[i] = containsFold(plainOf(l.runs)+plainOf(l.right), q)
	}
	return set, &d.cur[d.tab]
}

// countMatches counts the lines of the current screen that contain q.
func (m *model) countMatches(q string) int {
	set, _ := m.matchSet(q)
	return count(set)
}

// count counts the true values.
func count(set []bool) int {
	n := 0
	for _, b := range set {
		if b {
			n++
		}
	}
	return n
}

// enter follows the pointer of the current line: a hunk or a finding
// jumps to its event in the timeline; a timeline row opens in Raw.
func (m *model) enter() {
	d := m.det
	doc := m.doc(d.tab)
	if d.cur[d.tab] >= doc.len() {
		return
	}
	l := doc.line(d.cur[d.tab])
	switch d.tab {
	case tabTimeline:
		if l.row >= 0 {
			r := d.view().rows[l.row]
			d.raw = rawTarget{set: true, side: r.side, event: r.event, idx: r.idx}
			d.docs[tabRaw] = nil
			d.cur[tabRaw], d.off[tabRaw] = 0, 0
			m.setTab(tabRaw)
		}
	case tabDiff, tabFindings:
		if l.ptr == nil || l.ptr.Side == "" {
			m.setStatus("this line points at no event")
			return
		}
		m.jumpTo(*l.ptr)
	}
}

// jumpTo shows the event (or chunk) p points at in the timeline.
func (m *model) jumpTo(p inspect.Pointer) {
	d := m.det
	d.tlEvents = p.Event >= 0
	if d.tlSide != "" && d.tlSide != p.Side {
		d.tlSide = ""
	}
	d.docs[tabTimeline] = nil
	d.tail = false
	tl, ok := m.doc(tabTimeline).(*timelineDoc)
	if !ok {
		return
	}
	for i, ri := range tl.rows {
		r := tl.v.rows[ri]
		if r.side == p.Side && ((p.Event >= 0 && r.idx == p.Event) || (p.Event < 0 && r.idx == p.Chunk)) {
			d.cur[tabTimeline] = i
			d.raw = rawTarget{set: true, side: r.side, event: r.event, idx: r.idx}
			d.docs[tabRaw] = nil
			break
		}
	}
	m.setTab(tabTimeline)
}
