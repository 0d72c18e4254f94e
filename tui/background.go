package tui

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/seam-dev/seam/tape"
)

// The work done off the event loop: indexing captures step by step,
// reading streamed ones, decoding and inspecting an exchange for the detail
// screen; and what comes back of it.

// Messages from commands.
type (
	scanMsg struct {
		file     int
		changed  []exSummary
		header   *tape.Header
		hdr      span
		more     bool
		size     int64
		scanned  int64 // the offset past the last complete line indexed
		warnings []string
		refused  error // the file is not a capture this seam reads
		err      error
	}
	streamMsg struct {
		file int
		data []byte
		err  error
	}
	tickMsg struct{}
	// regroupMsg regroups the list by session after badges arrived.
	regroupMsg struct{}
	badgeMsg   struct {
		key exKey
		b   badge
		err error
	}
	loadedMsg struct {
		key  exKey
		rev  int
		cap  *tape.Capture
		view *exView
		err  error
	}
	replayMsg struct {
		key exKey
		gen int
		r   *replayed
		err error
	}
)

func (m *model) followTick() tea.Cmd {
	return tea.Tick(m.tick, func(time.Time) tea.Msg { return tickMsg{} })
}

// scanCmd indexes the next step of capture i in a command.
func (m *model) scanCmd(i int) tea.Cmd {
	c := m.caps[i]
	if c.scanning {
		return nil
	}
	c.scanning = true
	ix := c.ix
	r, size, isFile := c.reader()
	return func() tea.Msg {
		if isFile {
			st, err := c.file.Stat()
			if err != nil {
				return scanMsg{file: i, err: fmt.Errorf("stat %s: %w", ix.name, err)}
			}
			size = st.Size()
		}
		changed, more, err := ix.scan(r, size, scanStep)
		msg := scanMsg{file: i, changed: changed, more: more, size: size, scanned: ix.scanned, err: err}
		if ix.header != nil {
			msg.header, msg.hdr = ix.header, ix.hdr
		}
		msg.warnings = slices.Clone(ix.warnings)
		msg.refused = ix.refused
		return msg
	}
}

// loadCmd decodes and inspects one exchange for the detail screen.
func (m *model) loadCmd(k exKey) tea.Cmd {
	i, ok := m.byKey[k]
	if !ok {
		return nil
	}
	s := m.sums[i]
	c := m.caps[k.file]
	if c.header == nil {
		return nil
	}
	r, _, _ := c.reader()
	name, hdr, live := c.name, c.hdr, c.follow
	return func() tea.Msg {
		capt, err := loadExchange(r, name, hdr, s.lines)
		if err != nil {
			return loadedMsg{key: k, rev: s.rev, err: err}
		}
		if len(capt.Exchanges) == 0 {
			return loadedMsg{key: k, rev: s.rev, err: fmt.Errorf("exchange %d: no lines", k.ex)}
		}
		return loadedMsg{key: k, rev: s.rev, cap: capt, view: buildView(capt, capt.Exchanges[0], live)}
	}
}

func (m *model) onScan(msg scanMsg) tea.Cmd {
	c := m.caps[msg.file]
	c.scanning = false
	if msg.err != nil {
		c.err = msg.err
		m.setError(msg.err.Error())
		m.noteReadErr(msg.err)
		return nil
	}
	if msg.refused != nil {
		// Not a capture this seam reads: none of it is listed.
		if c.err == nil {
			c.err = msg.refused
			m.setError(msg.refused.Error())
		}
		c.done = true
		return nil
	}
	if msg.header != nil {
		if c.header == nil {
			m.badgeNext = 0 // its exchanges can be badged now
		}
		c.header, c.hdr = msg.header, msg.hdr
	}
	c.warnings = msg.warnings
	added := false
	for _, s := range msg.changed {
		k := exKey{s.file, s.ex}
		i, ok := m.byKey[k]
		if ok {
			m.sums[i] = s
		} else {
			i = len(m.sums)
			m.byKey[k] = i
			m.sums = append(m.sums, s)
			added = true
		}
		m.growCols(i)
		m.badgeNext = min(m.badgeNext, i) // new or grown: badge it (again)
	}
	if added || len(msg.changed) > 0 {
		m.applyFilter()
	}
	var cmds []tea.Cmd
	switch {
	case msg.more, c.stream != nil && int64(len(c.mem)) > msg.size:
		cmds = append(cmds, m.scanCmd(msg.file))
	default:
		// A followed file may be caught before its header line is whole.
		if !c.warned && c.header == nil && msg.size > 0 && (!c.follow || msg.scanned > 0) {
			c.warned = true
			why := "no capture header line"
			if len(c.warnings) > 0 {
				why = c.warnings[0]
			}
			m.setError(fmt.Sprintf("%s: not a readable capture: %s", filepath.Base(c.name), why))
		}
		c.done = true
	}
	if m.det != nil && !m.det.loading {
		if i, ok := m.byKey[m.det.key]; ok && m.sums[i].rev != m.det.rev {
			cmds = append(cmds, m.reload())
		}
	}
	cmds = append(cmds, m.badgeCmd())
	return tea.Batch(cmds...)
}

func (m *model) onStream(msg streamMsg) tea.Cmd {
	c := m.caps[msg.file]
	c.mem = append(c.mem, msg.data...)
	var cmds []tea.Cmd
	if msg.err != nil {
		c.streamed = true
		if !errors.Is(msg.err, io.EOF) {
			m.setError(fmt.Sprintf("read %s: %v", c.name, msg.err))
			m.noteReadErr(fmt.Errorf("read %s: %w", c.name, msg.err))
		}
		// A last line without a newline is complete at EOF.
		if n := len(c.mem); n > 0 && c.mem[n-1] != '\n' {
			c.mem = append(c.mem, '\n')
		}
	} else {
		cmds = append(cmds, c.readStream(msg.file))
	}
	if !c.scanning {
		cmds = append(cmds, m.scanCmd(msg.file))
	}
	return tea.Batch(cmds...)
}

// noteReadErr keeps the first read error for the exit status.
func (m *model) noteReadErr(err error) {
	if m.readErr == nil {
		m.readErr = err
	}
}
