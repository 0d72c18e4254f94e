package tui

import (
	"context"
	"errors"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"github.com/seam-dev/seam/session"
)

// followEvery is how often followed files are checked for new lines.
const followEvery = 250 * time.Millisecond

// exKey names one exchange of one capture.
type exKey struct{ file, ex int }

// Screens and overlays.
const (
	screenList = iota
	screenDetail
	screenSession
)

// Input modes of the bottom line.
const (
	inputNone = iota
	inputSearch
	inputFilter
)

// model is the root Bubble Tea model.
type model struct {
	// readErr is the first error reading a capture (not a malformed
	// line): shown at once, and what Run returns when the user quits.
	readErr error

	ctx context.Context
	// names shows some paths under another name (Options.Names).
	names  map[string]string
	keys   keyMap
	help   help.Model
	st     styles
	isDark bool
	w, h   int

	caps []*capState
	// rank is the place of each capture (by index in caps) in the list's
	// order: new files of a followed directory sort among its others.
	rank []int
	// dirs are the followed directories of Options.Paths.
	dirs    []*dirState
	sums    []exSummary
	byKey   map[exKey]int
	badges  map[exKey]badge
	badging bool
	// sessions links the exchanges into sessions as they are badged; only
	// the badge command, one at a time, touches it.
	sessions *session.Linker
	// badgeNext is the index in sums from which badgeCmd looks for an
	// exchange without a current badge; every summary before it has one
	// (or its capture has no header yet).
	badgeNext int

	// banner is Options.Banner, shown under the list's title.
	banner string

	list listState
	// sess is the session view, when screen is screenSession.
	sess *sessionView
	// cols holds the list's column widths, grown as rows and badges come.
	cols colCache

	screen   int
	showHelp bool
	det      *detail

	// unguarded skips the last check of each frame (visible.Styled), so
	// that tests see what the views drew.
	unguarded bool

	input    int
	inputBuf string
	// inputErr says why the filter typed does not parse; inputWas is the
	// filter before the filter line opened, put back by esc; inputMatches
	// counts what the search being typed matches (-1 before anything is
	// typed).
	inputErr     string
	inputWas     string
	inputMatches int
	search       string
	// helpOff is how far the full help is scrolled.
	helpOff int

	status    string
	statusErr bool

	// tick is how often followed files are checked (followEvery).
	tick time.Duration
	// regroup is how long the grouped list waits for more badges before
	// regrouping; regrouping is set while it waits.
	regroup    time.Duration
	regrouping bool
}

func newModel(ctx context.Context, o Options) (*model, error) {
	m := &model{
		ctx:    ctx,
		names:  o.Names,
		keys:   newKeyMap(),
		help:   help.New(),
		isDark: true,
		w:      80,
		h:      24,
		byKey:  map[exKey]int{},
		badges: map[exKey]badge{},
		tick:   followEvery,

		regroup:  200 * time.Millisecond,
		sessions: session.NewLinker(),
	}
	m.banner = o.Banner
	m.st = newStyles(true)
	m.help.Styles = help.DefaultStyles(true)
	for arg, p := range o.Paths {
		if err := m.openPath(arg, p, o.Follow); err != nil {
			m.close()
			return nil, err
		}
	}
	if o.Stream != nil {
		name := o.StreamName
		if name == "" {
			name = "-"
		}
		m.caps = append(m.caps, &capState{name: name, stream: o.Stream, follow: true, arg: len(o.Paths), ix: newIndexer(name, len(m.caps))})
	}
	if len(m.caps) == 0 && len(m.dirs) == 0 {
		return nil, errors.New("no capture to show")
	}
	m.rerank()
	return m, nil
}

// Init starts indexing every capture and asks for the background colour.
func (m *model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	for i, c := range m.caps {
		if c.stream != nil {
			cmds = append(cmds, c.readStream(i))
			continue
		}
		cmds = append(cmds, m.scanCmd(i))
	}
	if m.following() {
		cmds = append(cmds, m.followTick())
	}
	return tea.Batch(cmds...)
}

// Update handles one message.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.onResize(msg)
		return m, nil
	case tea.BackgroundColorMsg:
		m.isDark = msg.IsDark()
		m.st = newStyles(m.isDark)
		m.help.Styles = help.DefaultStyles(m.isDark)
		return m, nil
	case scanMsg:
		return m, m.onScan(msg)
	case streamMsg:
		return m, m.onStream(msg)
	case dirMsg:
		return m, m.onDir(msg)
	case openedMsg:
		return m, m.onOpened(msg)
	case tickMsg:
		return m, m.onTick()
	case badgeMsg:
		return m, m.onBadge(msg)
	case regroupMsg:
		m.regrouping = false
		m.applyFilter()
		return m, nil
	case loadedMsg:
		return m, m.onLoaded(msg)
	case replayMsg:
		m.onReplay(msg)
		return m, nil
	case tea.KeyPressMsg:
		return m, m.onKey(msg)
	case tea.MouseWheelMsg:
		d := 3
		if msg.Mouse().Button == tea.MouseWheelUp {
			d = -3
		}
		m.move(d)
		return m, nil
	case tea.MouseClickMsg:
		return m, m.onClick(msg.Mouse())
	}
	return m, nil
}

// onResize fits the screens to a new terminal size.
func (m *model) onResize(msg tea.WindowSizeMsg) {
	m.w, m.h = max(msg.Width, 20), max(msg.Height, 8)
	m.help.SetWidth(m.w)
	if m.det != nil {
		m.det.docs[tabRaw], m.det.docs[tabDiff] = nil, nil // both fit lines to the width
	}
	m.clamp()
}

// onTick reads on the followed captures that were read to their end and
// lists the followed directories again, and asks for the next tick while
// anything is followed.
func (m *model) onTick() tea.Cmd {
	var cmds []tea.Cmd
	for i, c := range m.caps {
		if c.follow && c.file != nil && c.done {
			cmds = append(cmds, m.scanCmd(i))
		}
	}
	for i := range m.dirs {
		cmds = append(cmds, m.listCmd(i))
	}
	if m.following() {
		cmds = append(cmds, m.followTick())
	}
	return tea.Batch(cmds...)
}

// setError shows a problem in the status line. Errors quote capture
// content, so the message is drawn with visible markers.
func (m *model) setError(s string) { m.status, m.statusErr = clean(s), true }

// setStatus shows a transient message in the status line.
func (m *model) setStatus(s string) { m.status, m.statusErr = clean(s), false }

// View renders the screen.
func (m *model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "seam tui"
	return v
}
