package record

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seam-dev/seam/tape"
)

// Rotation splits a recording's capture into files (seam record
// --rotate). Each file is a capture of its own: its header (the
// recording's ID and start, and its part number), the recording's note,
// and whole exchanges. The rule that keeps an exchange in one file: once
// a file reaches a limit, the exchanges that begin after that go to the
// next file, and the file closes when the last exchange writing to it has
// ended (so it passes Size by what those exchanges write, and a stream
// open for hours keeps its file open that long). Exchange numbers go on
// from file to file, so a number names one exchange of the recording.
// A file no exchange went to is never closed for a limit, so an idle
// recorder makes no more files, and the last file is handed to Empty
// when no exchange went to it.
type Rotation struct {
	// Size starts a new file once the current one holds this many bytes
	// (as on disk: compressed, for a compressed capture); 0 for no limit.
	Size int64
	// Every starts a new file once the current one has been open this
	// long; 0 for no limit.
	Every time.Duration
	// Create opens part n (from 1) of the capture and returns its name (a
	// name ending in tape.CompressedExt is compressed). Required when
	// Size or Every is set; RecordingOptions.Create is not used then.
	Create func(n int) (io.WriteCloser, string, error)
	// Empty, if set, hears the last file once closed when no exchange went
	// to it (the next file is opened as the current one closes, so a
	// recording stopped after its last rotation ends with one, and one
	// that served nothing has only that), instead of OnClosed: the caller
	// removes it.
	Empty func(path string)
}

// on reports whether the capture is split at all.
func (ro Rotation) on() bool { return ro.Size > 0 || ro.Every > 0 }

// capFile is one file of a recording's capture.
type capFile struct {
	part int
	// first is the lowest exchange number the file takes: an exchange
	// numbered before it (a sandwich's back leg, which takes its front
	// leg's number) goes to the file its number came from while it is
	// open.
	first  int
	out    io.WriteCloser
	path   string
	w      *tape.Writer
	opened time.Time
	// refs counts the exchanges writing to the file, plus one while it is
	// the current file; taken is how many exchanges went to it.
	refs, taken int
}

// files is a recording's capture: its files, the current one (where new
// exchanges go) and those still closing.
type files struct {
	rot    Rotation
	create func() (io.WriteCloser, string, error)
	header tape.Header
	note   string
	wopts  func(path string) tape.WriterOptions
	// onClosed hears each file once closed: every line written, synced.
	onClosed func(path string, err error)
	log      io.Writer
	// keep, when its Done is set, hands over each exchange recorded
	// (RecordingOptions.OnRecorded); held counts what they hold, over
	// every file.
	keep keeping
	held atomic.Int64

	mu   sync.Mutex
	cur  *capFile
	open []*capFile // not closing yet, in the order opened; cur is last
	// top is the highest exchange number given out: a file opened by the
	// clock takes the numbers after it.
	top int
	// rotateErr is the last failure to open the next file, said once.
	rotateErr string
	closed    []string         // the files closed, in order
	stats     tape.WriterStats // of the files closed
	errs      []error          // their close errors
	closing   sync.WaitGroup
	stop      chan struct{}
	ticking   sync.WaitGroup
}

// openFile opens part n: creates the file and starts its writer with the
// header and the note. Called with f.mu held, or before the recording
// serves.
func (f *files) openFile(n, first int) (*capFile, error) {
	var (
		out  io.WriteCloser
		path string
		err  error
	)
	if f.rot.on() {
		out, path, err = f.rot.Create(n)
	} else {
		out, path, err = f.create()
	}
	if err != nil {
		return nil, err
	}
	h := f.header
	if f.rot.on() {
		h.Part = n
	}
	var notes []tape.Note
	if f.note != "" {
		notes = append(notes, tape.Note{Text: f.note})
	}
	wo := f.wopts(path)
	wo.Keep = f.keep.of(path, h, &f.held)
	cf := &capFile{part: n, first: first, out: out, path: path, opened: time.Now(), refs: 1}
	if f.rot.on() || f.onClosed != nil {
		// The header goes to a file that will be shipped at once: one
		// killed right after it was made reads as a capture of no exchange.
		if err := tape.WriteStart(out, wo.Compress, h, notes...); err != nil {
			out.Close()
			return nil, fmt.Errorf("capture %s: %w", path, err)
		}
		cf.w = tape.NewWriter(out, wo)
		return cf, nil
	}
	cf.w = tape.NewWriter(out, wo)
	cf.w.Header(h)
	for _, n := range notes {
		cf.w.Note(n)
	}
	return cf, nil
}

// start opens the first file and, when the capture is split by time or
// size, starts the clock that checks the limits while no exchange begins.
func (f *files) start() error {
	cf, err := f.openFile(1, 1)
	if err != nil {
		return err
	}
	f.cur, f.open = cf, []*capFile{cf}
	f.stop = make(chan struct{})
	if f.rot.on() {
		f.ticking.Go(f.tick)
	}
	return nil
}

// tickEvery is how often the clock checks the limits: a tenth of Every,
// within 10ms and 1s.
func (f *files) tickEvery() time.Duration {
	d := time.Second
	if f.rot.Every > 0 {
		d = min(d, max(f.rot.Every/10, 10*time.Millisecond))
	}
	return d
}

func (f *files) tick() {
	t := time.NewTicker(f.tickEvery())
	defer t.Stop()
	for {
		select {
		case <-f.stop:
			return
		case <-t.C:
			f.mu.Lock()
			if f.due(f.cur) {
				f.rotate(f.top + 1)
			}
			f.mu.Unlock()
		}
	}
}

// due reports whether cf has reached a limit and has an exchange in it.
// Called with f.mu held.
func (f *files) due(cf *capFile) bool {
	if !f.rot.on() || cf.taken == 0 {
		return false
	}
	return f.rot.Size > 0 && cf.w.Written() >= f.rot.Size ||
		f.rot.Every > 0 && time.Since(cf.opened) >= f.rot.Every
}

// rotate makes the next file the current one, for exchanges numbered from
// first on, and lets the current one close once its exchanges end. When
// the next file cannot be opened, it says so (once per cause) and the
// current file goes on. Called with f.mu held.
func (f *files) rotate(first int) {
	old := f.cur
	cf, err := f.openFile(old.part+1, first)
	if err != nil {
		if msg := err.Error(); msg != f.rotateErr {
			f.rotateErr = msg
			fmt.Fprintf(f.log, "seam: cannot start the next capture file: %v; %s goes on\n", err, old.path)
		}
		return
	}
	f.rotateErr = ""
	f.cur = cf
	f.open = append(f.open, cf)
	f.release(old)
}

// exchange gives exchange ex its writer: the current file's, or for an
// exchange numbered before the current file's first, the file its number
// belongs to while that one is open. The current file is rotated first
// when it is due. It returns the file's name and what to call once the
// exchange has written its last line.
func (f *files) exchange(ex int) (*tape.ExchangeWriter, string, func()) {
	f.mu.Lock()
	if ex > f.top && f.due(f.cur) {
		// Only a new exchange rotates: a sandwich's back leg, numbered
		// after its front, must find the front's file, not open another.
		f.rotate(ex)
	}
	cf := f.cur
	if ex < cf.first {
		for i := len(f.open) - 1; i >= 0; i-- {
			if f.open[i].first <= ex {
				cf = f.open[i]
				break
			}
		}
	}
	f.top = max(f.top, ex)
	cf.refs++
	cf.taken++
	f.mu.Unlock()
	var once sync.Once
	return cf.w.Exchange(ex), cf.path, func() {
		once.Do(func() {
			f.mu.Lock()
			f.release(cf)
			f.mu.Unlock()
		})
	}
}

// release drops a reference to cf; the last one closes it, on a goroutine
// of its own. Called with f.mu held.
func (f *files) release(cf *capFile) {
	cf.refs--
	if cf.refs > 0 {
		return
	}
	for i, o := range f.open {
		if o == cf {
			f.open = append(f.open[:i], f.open[i+1:]...)
			break
		}
	}
	last := f.cur == cf
	f.closing.Go(func() { f.close(cf, last) })
}

// close writes every line queued for cf, syncs and closes the file, and
// reports it closed.
func (f *files) close(cf *capFile, last bool) {
	err := cf.w.Close()
	if s, ok := cf.out.(interface{ Sync() error }); ok && err == nil {
		if serr := s.Sync(); serr != nil {
			err = fmt.Errorf("sync capture: %w", serr)
		}
	}
	err = errors.Join(err, cf.out.Close())
	if err != nil {
		err = fmt.Errorf("capture %s: %w", cf.path, err)
	}
	st := cf.w.Stats()
	if last && cf.taken == 0 && err == nil && f.rot.Empty != nil && f.rot.on() {
		f.rot.Empty(cf.path)
		return
	}
	f.mu.Lock()
	f.closed = append(f.closed, cf.path)
	f.stats.Recorded += st.Recorded
	f.stats.Incomplete += st.Incomplete
	f.stats.Skipped += st.Skipped
	if err != nil {
		f.errs = append(f.errs, err)
	}
	f.mu.Unlock()
	if f.onClosed != nil {
		f.onClosed(cf.path, err)
	}
}

// path returns the current file's name.
func (f *files) path() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cur.path
}

// end closes every file, once every exchange has ended, and returns what
// went wrong closing any of them.
func (f *files) end() error {
	close(f.stop)
	f.ticking.Wait()
	f.mu.Lock()
	if f.cur != nil {
		cur := f.cur
		f.release(cur)
	}
	f.mu.Unlock()
	f.closing.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	return errors.Join(f.errs...)
}

// abort closes the first file of a recording that did not start.
func (f *files) abort() {
	close(f.stop)
	f.ticking.Wait()
	if f.cur != nil {
		f.cur.w.Close()
		f.cur.out.Close()
	}
}

// writerStats returns what the files closed so far and the open ones have
// written.
func (f *files) writerStats() (tape.WriterStats, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.stats
	for _, cf := range f.open {
		s := cf.w.Stats()
		st.Recorded += s.Recorded
		st.Incomplete += s.Incomplete
		st.Skipped += s.Skipped
	}
	return st, append([]string(nil), f.closed...)
}

// Recorded is an exchange recorded whole, handed to
// RecordingOptions.OnRecorded.
type Recorded struct {
	// Path is the capture file it went to, and Header that file's header.
	Path   string
	Header tape.Header
	// X is the exchange as a reader of the file reads it (its anomalies
	// carry no line numbers).
	X *tape.Exchange
	// Release must be called once X is no longer used: what it holds then
	// stops counting against RecordingOptions.KeepMax.
	Release func()
}

// keeping is what a recording hands over of its exchanges as it records
// them (see tape.Keep).
type keeping struct {
	done func(Recorded)
	drop func(ex int)
	max  int64
}

// of returns the tape.Keep of the capture file at path, whose header is h;
// nil when nothing is handed over.
func (k keeping) of(path string, h tape.Header, held *atomic.Int64) *tape.Keep {
	if k.done == nil {
		return nil
	}
	return &tape.Keep{Max: k.max, Held: held, Sandwich: h.Engine.Profile == "external", Drop: k.drop,
		Done: func(x *tape.Exchange, release func()) {
			k.done(Recorded{Path: path, Header: h, X: x, Release: release})
		}}
}
