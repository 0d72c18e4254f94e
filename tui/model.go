package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/query"
	"github.com/seam-dev/seam/session"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/timing"
)

// followEvery is how often followed files are checked for new lines.
const followEvery = 250 * time.Millisecond

// exKey names one exchange of one capture.
type exKey struct{ file, ex int }

// capState is one capture source: a file read with ReadAt, or a stream
// accumulated in memory.
type capState struct {
	name string
	file *os.File
	// zfile is a compressed capture file, read through stream.
	zfile    *os.File
	mem      []byte
	stream   io.Reader
	readBuf  []byte // reused by every read of stream
	streamed bool   // the stream reached EOF
	follow   bool
	// arg is the capture's index in Options.Paths (after them for the
	// stream); the list orders captures by it, then by name.
	arg int
	// info identifies the file of a followed capture, so one renamed in a
	// followed directory is not opened twice.
	info     os.FileInfo
	warned   bool // the user was told it is not a readable capture
	ix       *indexer
	scanning bool
	header   *tape.Header
	hdr      span
	err      error
	warnings []string
	done     bool // the first full scan finished
}

// reader returns a ReaderAt over the source and its current size. For a
// memory source it is a snapshot: bytes before the size never change.
func (c *capState) reader() (io.ReaderAt, int64, bool) {
	if c.file != nil {
		return c.file, -1, true
	}
	return bytes.NewReader(c.mem), int64(len(c.mem)), false
}

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

	ctx    context.Context
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

// openPath opens the capture file p, or the capture files of directory p
// in name order. With follow, a directory is remembered to be listed again
// every tick, and may be empty.
func (m *model) openPath(arg int, p string, follow bool) error {
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("open capture: %w", err)
	}
	st, err := f.Stat()
	if err != nil || !st.IsDir() {
		if !follow {
			// A capture that is not one this seam reads is refused before
			// anything is listed; a followed one may not be written yet.
			if err := captures.CheckHeader(f, p); err != nil {
				f.Close()
				return err
			}
		}
		var info os.FileInfo
		if follow && err == nil {
			info = st // its identity, for files appearing in followed directories
		}
		m.caps = append(m.caps, m.newFileCap(p, f, info, arg, follow, captures.IsCompressed(p, f)))
		return nil
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return fmt.Errorf("list %s: %w", p, err)
	}
	names := captures.Names(ents)
	if len(names) == 0 && !follow {
		return fmt.Errorf("%s: no *.ndjson captures (or *.ndjson.zst) in this directory", p)
	}
	d := &dirState{path: p, arg: arg, seen: map[string]bool{}}
	opened := 0
	for _, n := range names {
		path := filepath.Join(p, n)
		// Only regular files: opening a named pipe found in a directory
		// waits for a writer, maybe forever.
		f, err := tape.OpenRegular(path)
		if errors.Is(err, tape.ErrNotRegular) {
			m.setError("skipped " + err.Error())
			d.seen[n] = true
			continue
		}
		if err != nil {
			return fmt.Errorf("open capture: %w", err)
		}
		opened++
		if !follow {
			if err := captures.CheckHeader(f, path); err != nil {
				f.Close()
				return err
			}
		}
		var info os.FileInfo
		if follow {
			info, _ = f.Stat() // nil on error: only renames go unnoticed
		}
		m.caps = append(m.caps, m.newFileCap(path, f, info, arg, follow, captures.IsCompressed(path, f)))
		d.seen[n] = true
	}
	if opened == 0 && !follow {
		return fmt.Errorf("%s: no *.ndjson captures (or *.ndjson.zst) in this directory that are regular files", p)
	}
	if follow {
		m.dirs = append(m.dirs, d)
	}
	return nil
}

// newFileCap returns the source of the capture file f (opened from path).
// A plain capture is read in place with ReadAt, lazily; a compressed one
// (captures.IsCompressed, which reads the file and so is called where I/O
// may be done, never in Update) is decompressed as a stream into memory,
// and when followed, read on as it grows.
func (m *model) newFileCap(path string, f *os.File, info os.FileInfo, arg int, follow, compressed bool) *capState {
	ix := newIndexer(path, len(m.caps))
	if !compressed {
		return &capState{name: path, file: f, info: info, arg: arg, follow: follow, ix: ix}
	}
	var src io.Reader = f
	if follow {
		src = captures.Tail(m.ctx, f, followEvery)
	}
	return &capState{name: path, zfile: f, stream: captures.Uncompressed(src), info: info, arg: arg, follow: follow, ix: ix}
}

// close releases the open files.
func (m *model) close() {
	for _, c := range m.caps {
		if c.file != nil {
			c.file.Close()
		}
		if c.zfile != nil {
			c.zfile.Close()
		}
	}
}

// following reports whether any source is followed.
func (m *model) following() bool {
	if len(m.dirs) > 0 {
		return true
	}
	for _, c := range m.caps {
		if c.follow && !(c.stream != nil && c.streamed) {
			return true
		}
	}
	return false
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

// readStream reads the next piece of the streamed capture i. One read is
// outstanding at a time, so every read reuses the source's buffer and the
// message carries a copy of what was read.
func (c *capState) readStream(i int) tea.Cmd {
	if c.readBuf == nil {
		c.readBuf = make([]byte, 256<<10)
	}
	buf, r := c.readBuf, c.stream
	return func() tea.Msg {
		n, err := r.Read(buf)
		return streamMsg{file: i, data: bytes.Clone(buf[:n]), err: err}
	}
}

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

// Update handles one message.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = max(msg.Width, 20), max(msg.Height, 8)
		m.help.SetWidth(m.w)
		if m.det != nil {
			m.det.docs[tabRaw], m.det.docs[tabDiff] = nil, nil // both fit lines to the width
		}
		m.clamp()
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
		return m, tea.Batch(cmds...)
	case badgeMsg:
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
		return m, tea.Batch(regroup, m.badgeCmd())
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
