package otlpexport

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"time"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/request"
	"github.com/seam-dev/seam/session"
	"github.com/seam-dev/seam/tape"
)

// Live exports the exchanges of a recording as the recorder hands them
// over, each once its last line is in the capture (capture's
// RecordingOptions.OnRecorded): the exchange as a reader of the file
// would read it, without the file being read back. It inspects them one
// at a time on a goroutine of its own, as seam inspect would (sessions
// linked across the recording, every file of a rotated one), and exports
// each: the recording never waits for it. The exchanges waiting are
// bounded (LiveOptions.Queue, and the bytes the recorder lets them hold):
// one that finds no room is dropped and counted with the spans dropped.
type Live struct {
	x     *Exporter
	uri   func(path string) string
	stall time.Duration

	mu     sync.Mutex
	closed bool
	in     chan liveExchange
	done   chan struct{}
}

// liveExchange is an exchange waiting for export: the capture file it is
// in and that file's header.
type liveExchange struct {
	path    string
	header  tape.Header
	x       *tape.Exchange
	release func()
}

// LiveOptions tune a Live export.
type LiveOptions struct {
	// URI is the capture URI spans carry for the file at path (FileURI
	// when nil).
	URI func(path string) string
	// Stall is inspect's stall threshold (0: its default).
	Stall time.Duration
	// Queue bounds the exchanges waiting for export (DefaultLiveQueue
	// when 0).
	Queue int
}

// DefaultLiveQueue is LiveOptions.Queue's default.
const DefaultLiveQueue = 4096

// Errors a live export drops spans with.
var (
	// ErrBehind: the exchanges waiting for export filled the queue.
	ErrBehind = errors.New("the export fell behind the recording: its queue of exchanges was full")
	// ErrTooBig: the exchanges being recorded and waiting for export held
	// more bytes than the recorder keeps for the export.
	ErrTooBig = errors.New("the exchanges waiting for export held more bytes than seam keeps for it")
)

// NewLive starts exporting a recording's exchanges through x. Stop ends
// it.
func NewLive(x *Exporter, o LiveOptions) *Live {
	if o.URI == nil {
		o.URI = FileURI
	}
	if o.Queue <= 0 {
		o.Queue = DefaultLiveQueue
	}
	l := &Live{x: x, uri: o.URI, stall: o.Stall, in: make(chan liveExchange, o.Queue), done: make(chan struct{})}
	go l.run()
	return l
}

// Add queues exchange ex of the capture file at path, whose header is h,
// for export; release is called once it is exported (or dropped). It
// never blocks: with the queue full, the exchange's span is dropped and
// counted.
func (l *Live) Add(path string, h tape.Header, ex *tape.Exchange, release func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		release()
		l.x.q.drop(1, errors.New("the exchange ended after the export stopped"))
		return
	}
	select {
	case l.in <- liveExchange{path: path, header: h, x: ex, release: release}:
	default:
		release()
		l.x.q.drop(1, ErrBehind)
	}
}

// NotKept counts the span of an exchange the recorder did not hand over
// (it would have held too many bytes) as dropped.
func (l *Live) NotKept(int) { l.x.q.drop(1, ErrTooBig) }

// Hook hands l the exchanges the recording cfg sets up records, and counts
// those the recorder could not hand over as dropped spans. Call it before
// the recording starts.
func (l *Live) Hook(cfg *record.RecordingOptions) {
	cfg.OnRecorded = func(r record.Recorded) { l.Add(r.Path, r.Header, r.X, r.Release) }
	cfg.OnNotKept = l.NotKept
}

// Close ends the export once the recording stopped: Stop, then the
// exporter closed, waiting up to wait for the queued spans to go out. It
// returns the exporter's summary line. A nil l does nothing and says "".
func (l *Live) Close(wait time.Duration) string {
	if l == nil {
		return ""
	}
	l.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	l.x.Close(ctx)
	return l.x.Summary()
}

// Stop exports what is queued (call it once the recording stopped, so
// every exchange was handed over) and returns. The spans are then queued
// in the Exporter: Close it to send them.
func (l *Live) Stop() {
	l.mu.Lock()
	if !l.closed {
		l.closed = true
		close(l.in)
	}
	l.mu.Unlock()
	<-l.done
}

func (l *Live) run() {
	defer close(l.done)
	// An Inspector per capture file, sessions linked across them all, as
	// seam export --format otlp reads the files of a rotated recording:
	// a session's id names the file and exchange it started at.
	sessions := session.NewLinker()
	// One Reader for them all too, small: it lives in the recorder.
	requests := request.NewReader(liveRequestMemory)
	byPath := map[string]*inspect.Inspector{}
	var paths []string
	for e := range l.in {
		in := byPath[e.path]
		if in == nil {
			in = inspect.NewInspector(e.path, e.header, inspect.Options{Stall: l.stall, NoDiffs: true, Sessions: sessions, Requests: requests})
			byPath[e.path] = in
			paths = append(paths, e.path)
			if len(paths) > maxOpenFiles {
				delete(byPath, paths[0])
				paths = paths[1:]
			}
		}
		l.export(in, e)
	}
}

// liveRequestMemory bounds the request bodies Live's request.Reader keeps
// to recall the messages an agent's requests repeat (the reading commands'
// keep four times as much).
const liveRequestMemory = 4 << 20

// maxOpenFiles is how many capture files' Inspectors Live keeps: a
// rotated recording's files close in the order they were opened, the
// exchanges of an old one ending while newer ones fill.
const maxOpenFiles = 16

// export inspects e and exports it. A panic inspecting a hostile exchange
// drops its span, said as the reason: the recording goes on.
func (l *Live) export(in *inspect.Inspector, e liveExchange) {
	defer e.release()
	defer func() {
		if v := recover(); v != nil {
			l.x.q.drop(1, fmt.Errorf("exchange %d: panic building its span: %v", e.x.Ex, v))
		}
	}()
	rep := in.Exchange(e.x)
	l.x.Export(Exchange{Header: &e.header, CaptureURI: l.uri(e.path), X: e.x, Report: rep})
}

// FileURI returns the file: URI of a capture at path.
func FileURI(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}
