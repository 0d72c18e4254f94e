package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// copySelection copies the text under the cursor with OSC 52.
func (m *model) copySelection() tea.Cmd {
	var s string
	if m.screen == screenList {
		if sum, ok := m.selected(); ok {
			s = strings.TrimSpace(sum.method + " " + sum.url)
		}
	} else if d := m.det; d.rec != nil {
		v := d.view()
		doc := m.doc(d.tab)
		switch d.tab {
		case tabFindings:
			if d.cur[tabFindings] < doc.len() {
				if i := doc.line(d.cur[tabFindings]).finding; i >= 0 && i < len(v.rep.Findings) {
					f := v.rep.Findings[i]
					s = f.Evidence
					if s == "" {
						s = f.ID + ": " + f.Message
					}
				}
			}
		case tabRequest:
			if v.x.Request != nil {
				s = string(v.x.Request.Body)
			}
		case tabTimeline, tabRaw:
			t := d.rawTarget()
			if d.tab == tabTimeline && d.cur[tabTimeline] < doc.len() {
				r := v.rows[doc.line(d.cur[tabTimeline]).row]
				t = rawTarget{set: true, side: r.side, event: r.event, idx: r.idx}
			}
			if ws, ok := v.wsData(t); ok && t.set {
				s = string(ws)
			} else if t.set {
				chunks := v.chunks[t.side]
				if t.event && t.idx < len(v.events[t.side]) {
					e := v.events[t.side][t.idx]
					s = string(sliceBody(chunks, e.Off, e.End))
				} else if !t.event && t.idx < len(chunks) {
					s = string(chunks[t.idx].Data)
				}
			}
		case tabDiff:
			// The hunk under the cursor, with its gutters.
			start := d.cur[tabDiff]
			for start > 0 && doc.line(start).hunk < 0 {
				start--
			}
			var b strings.Builder
			for i := start; i < doc.len(); i++ {
				l := doc.line(i)
				if i > start && (l.hunk >= 0 || strings.HasPrefix(plainOf(l.runs), "━━")) {
					break
				}
				b.WriteString(ansi.Strip(plainOf(l.runs)) + "\n")
			}
			s = b.String()
		}
	}
	if s == "" {
		m.setStatus("nothing to copy here")
		return nil
	}
	m.setStatus(fmt.Sprintf("copied %d bytes (OSC 52)", len(s)))
	return tea.SetClipboard(s)
}
