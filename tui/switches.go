package tui

import (
	"fmt"
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/shape"
	"github.com/seam-dev/seam/tape"
)

// reload decodes the open exchange again (it grew while following).
func (m *model) reload() tea.Cmd {
	m.det.loading = true
	return m.loadCmd(m.det.key)
}

func (m *model) onLoaded(msg loadedMsg) tea.Cmd {
	d := m.det
	if d == nil || d.key != msg.key {
		return nil
	}
	d.loading = false
	if msg.err != nil {
		d.err = msg.err
		return nil
	}
	first := d.rec == nil
	d.rev, d.capt, d.rec, d.err = msg.rev, msg.cap, msg.view, nil
	if first {
		d.recEngine = resolveEngine(msg.cap.Header.Engine)
		d.engine = d.recEngine
		// A stream still arriving is followed: the timeline and the
		// assembled text stay at their ends until the user scrolls up.
		d.tail = m.following() && m.live(d.key)
	}
	d.invalidate()
	if d.tail {
		d.cur[tabTimeline], d.cur[tabDiff] = 1<<30, 1<<30
	}
	m.clamp()
	var cmds []tea.Cmd
	if engineDelta(d.recEngine, d.engine) != "" {
		cmds = append(cmds, m.replayCmd())
	}
	if i, ok := m.byKey[d.key]; ok && m.sums[i].rev != d.rev {
		cmds = append(cmds, m.reload())
	}
	return tea.Batch(cmds...)
}

// live reports whether an exchange is still streaming: its client side (or
// upstream side, when no client side is recorded) has not ended.
func (m *model) live(k exKey) bool {
	i, ok := m.byKey[k]
	return ok && m.sums[i].endT < 0
}

// setEngine switches the engine shown and replays the exchange through it
// when it differs from the recorded one.
func (m *model) setEngine(e tape.Engine) tea.Cmd {
	d := m.det
	d.engine = e
	if engineDelta(d.recEngine, e) == "" {
		d.rp, d.replayErr, d.replaying = nil, nil, false
		d.gen++
		d.invalidate()
		m.clamp()
		m.setStatus("showing the recording")
		return nil
	}
	return m.replayCmd()
}

func (m *model) replayCmd() tea.Cmd {
	d := m.det
	if d.rec == nil {
		return nil
	}
	d.gen++
	d.replaying = true
	gen, k, ctx, capt, rec, eng := d.gen, d.key, m.ctx, d.capt, d.rec, d.engine
	return func() tea.Msg {
		r, err := replayExchange(ctx, capt, rec.x, rec, eng)
		return replayMsg{key: k, gen: gen, r: r, err: err}
	}
}

func (m *model) onReplay(msg replayMsg) {
	d := m.det
	if d == nil || d.key != msg.key || d.gen != msg.gen {
		return
	}
	d.replaying = false
	if msg.err != nil {
		d.replayErr = msg.err
		m.setError(msg.err.Error())
		return
	}
	d.rp, d.replayErr = msg.r, nil
	d.invalidate()
	m.clamp()
	before, after := len(d.rec.rep.Findings), len(msg.r.view.rep.Findings)
	m.setStatus(fmt.Sprintf("replayed with %s: %s, %d recorded", engineDelta(d.recEngine, d.engine), units.Count(after, "finding"), before))
}

// onPanelKey handles the engine switch panel.
func (m *model) onPanelKey(msg tea.KeyPressMsg) tea.Cmd {
	k, d := m.keys, m.det
	sw := shape.Switches()
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Up):
		d.panelCur = max(d.panelCur-1, 0)
	case key.Matches(msg, k.Down):
		d.panelCur = min(d.panelCur+1, len(sw)-1)
	case key.Matches(msg, k.Reset):
		return m.setEngine(d.recEngine)
	case key.Matches(msg, k.Toggle):
		if d.rec == nil {
			return nil
		}
		s := sw[d.panelCur]
		cur := d.engine.Switches[s.Name]
		next := "on"
		if s.Kind == "bool" {
			if cur == "on" {
				next = "off"
			}
		} else {
			n, _ := strconv.Atoi(cur)
			if key.Matches(msg, k.Decrease) {
				n = max(n-1, 0)
			} else {
				n++
			}
			next = strconv.Itoa(n)
		}
		set := map[string]string{}
		for k, v := range d.engine.Switches {
			set[k] = v
		}
		set[s.Name] = next
		e, err := shape.Resolve(d.engine.Profile, set)
		if err != nil {
			m.setError(err.Error())
			return nil
		}
		return m.setEngine(e)
	case key.Matches(msg, k.Help):
		m.showHelp = true
	case key.Matches(msg, k.Back), key.Matches(msg, k.Engine):
		d.panel = false
	}
	return nil
}
