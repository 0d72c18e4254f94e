package record

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/listen"
	"github.com/seam-dev/seam/tape"
)

// Endpoint is one listener of a [Recording]: where it listens, what it
// forwards to and which part of the exchanges it records. A recording has
// one (a Whole leg), or two around a proxy under test (Front and Back).
type Endpoint struct {
	// Listen is the address to listen on.
	Listen string
	// Upstream is where requests go; nil in forward mode.
	Upstream *url.URL
	// Leg is the part of each exchange the endpoint records.
	Leg Leg
	// Handler, if set, makes the endpoint's HTTP handler from its recorder
	// (seam serve answers from captures and hands only misses to it).
	Handler func(*Recorder) http.Handler
	// Transport, if set, sends the endpoint's requests upstream.
	Transport http.RoundTripper
	// Forward, if set, makes the forward proxy in front of the handler
	// (Upstream is then nil): it is the endpoint's handler.
	Forward func(http.Handler) (*Forward, error)

	ln  net.Listener
	rec *Recorder
	srv *http.Server
	fwd *Forward
}

// Addr returns the address the endpoint listens on, once listening.
func (ep *Endpoint) Addr() net.Addr { return ep.ln.Addr() }

// RecordingOptions says what [StartRecording] starts.
type RecordingOptions struct {
	Endpoints []*Endpoint
	// Create opens where the capture goes and returns its name for
	// messages (a name ending in tape.CompressedExt is compressed); it is
	// called once every endpoint listens, so a busy address leaves no
	// capture behind.
	Create func() (io.WriteCloser, string, error)
	// Rotate, if its Size or Every is set, splits the capture into files
	// it creates (Create is not used then).
	Rotate Rotation
	// OnClosed, if set, hears each capture file once it is closed (with
	// every line written and synced; err says what failed closing it),
	// from a goroutine of its own: with Rotate, as each file closes, and
	// the last one when the recording stops.
	OnClosed func(path string, err error)
	// Fsync syncs the capture after every write.
	Fsync bool
	// Buffer bounds the bytes of chunk lines waiting for the disk
	// (tape.WriterOptions.MaxQueued; 0: tape.DefaultMaxQueued). An
	// exchange that starts while they fill three quarters of it is not
	// recorded.
	Buffer int
	// Header is the capture header: its Seam, Engine, Upstream (redacted)
	// and Insecure; V, ID and Started are set when the recording starts.
	Header tape.Header
	// Note, if set, makes a capture-level note once the endpoints listen.
	Note func(eps []*Endpoint) string
	// OnDone hears each exchange's summary as it ends.
	OnDone func(Summary)
	// OnRecorded, if set, hears each exchange once its last line is
	// written to the capture, whole, as a reader of the file would read it,
	// without the file being read back (see tape.Keep): what an exporter
	// reads. It is called from the capture writer's goroutine and must
	// not block.
	OnRecorded func(Recorded)
	// KeepMax bounds the chunk bytes the exchanges handed to OnRecorded
	// (and those still being recorded for it) hold together
	// (tape.DefaultKeepMax when 0); an exchange that would take them past
	// it is not handed over, and OnNotKept hears its number.
	KeepMax   int64
	OnNotKept func(ex int)
	// Server configures every endpoint's server; Listen and Forward are
	// set per endpoint.
	Server listen.Options
	// Redaction adds --redact patterns to the built-in rules; nil for none.
	Redaction *tape.Redaction
	// Log is where write errors are reported as they happen; nil for
	// nowhere.
	Log io.Writer
}

// Recording is a running recording proxy: its endpoints and the capture
// they write.
type Recording struct {
	eps   []*Endpoint
	files *files
	errs  chan error
	// cut cancels the context of every request, ending the connections the
	// servers no longer track (WebSockets, once switched), with
	// ErrShutdown as the cause: the exchanges it cuts are recorded as cut
	// by seam's shutdown.
	cut context.CancelCauseFunc
	// drops counts the exchanges that lost data because the disk fell
	// behind.
	drops atomic.Int64
	// served counts the exchanges the endpoints answered (OnDone's).
	served atomic.Int64
}

// StartRecording listens on every endpoint's address, opens the capture,
// writes its header and starts serving. On error nothing is left open.
func StartRecording(o RecordingOptions) (_ *Recording, err error) {
	base, cut := context.WithCancelCause(context.Background())
	r := &Recording{eps: o.Endpoints, errs: make(chan error, len(o.Endpoints)), cut: cut}
	if o.Log == nil {
		o.Log = io.Discard
	}
	defer func() {
		if err != nil {
			r.closeListeners()
		}
	}()
	for _, ep := range r.eps {
		if ep.ln, err = net.Listen("tcp", ep.Listen); err != nil {
			return nil, fmt.Errorf("listen: %w", err)
		}
		ep.ln = listen.HintTLS(ep.ln, ep.ln.Addr().String(), ep.Forward != nil, o.Server.Log)
	}
	start := time.Now()
	h := o.Header
	var id [8]byte
	rand.Read(id[:])
	h.V, h.ID, h.Started = tape.Version, hex.EncodeToString(id[:]), start.UTC()
	r.files = &files{rot: o.Rotate, create: o.Create, header: h, log: o.Log, onClosed: o.OnClosed,
		keep:  keeping{done: o.OnRecorded, drop: o.OnNotKept, max: o.KeepMax},
		wopts: func(path string) tape.WriterOptions { return r.writerOptions(o, path) }}
	if o.Note != nil {
		r.files.note = o.Note(r.eps)
	}
	if err := r.files.start(); err != nil {
		return nil, err
	}
	if err := r.serve(o, base, start); err != nil {
		r.files.abort()
		return nil, err
	}
	return r, nil
}

// writerOptions are the capture writer's: what it says on o.Log when the
// capture cannot keep up or fails.
func (r *Recording) writerOptions(o RecordingOptions, path string) tape.WriterOptions {
	return tape.WriterOptions{
		Sync:      o.Fsync,
		MaxQueued: o.Buffer,
		Compress:  strings.HasSuffix(path, tape.CompressedExt),
		OnError: func(err error, inFlight int) {
			// Said at once: the proxy keeps serving, so nothing else shows it.
			fmt.Fprintf(o.Log, "seam: capture %s: %v: recording stopped; %s in flight will not be recorded to the end, later ones not at all (clients are still served)\n",
				path, err, units.Count(inFlight, "exchange"))
		},
		OnDrop: func(ex int) {
			if r.drops.Add(1) == 1 {
				fmt.Fprintf(o.Log, "seam: capture %s: recording fell behind the wire (the disk, or the CPU the capture writer gets): exchange #%d and others that start before it catches up are not recorded, so those under way stay whole (their clients still get every byte; a note in the capture marks each); a larger --buffer rides out longer stalls\n", path, ex)
			}
		},
	}
}

// onDone counts each exchange served, then passes its summary to f (when
// set).
func (r *Recording) onDone(f func(Summary)) func(Summary) {
	return func(s Summary) {
		r.served.Add(1)
		if f != nil {
			f(s)
		}
	}
}

// serve makes each endpoint's recorder, handler and server, and starts
// serving; base is every request's context.
func (r *Recording) serve(o RecordingOptions, base context.Context, start time.Time) error {
	legEngine := o.Header.Engine
	if legEngine.Profile == "external" {
		legEngine = tape.Engine{} // the legs pass through; the proxy under test shapes
	}
	numbering := &Numbering{Notify: func(msg string) { fmt.Fprintln(o.Log, msg) }}
	for _, ep := range r.eps {
		var err error
		ep.rec, err = New(Options{
			Upstream: ep.Upstream, Engine: legEngine, Files: r.files.exchange, Start: start,
			Leg: ep.Leg, Numbering: numbering, OnDone: r.onDone(o.OnDone), Transport: ep.Transport, Redaction: o.Redaction,
		})
		var h http.Handler = ep.rec
		if err == nil && ep.Handler != nil {
			h = ep.Handler(ep.rec)
		}
		if err == nil && ep.Forward != nil {
			ep.fwd, err = ep.Forward(h)
			h = ep.fwd
		}
		if err != nil {
			return err
		}
		so := o.Server
		so.Listen, so.Forward = ep.Listen, ep.Forward != nil
		ep.srv = listen.NewServer(h, so)
		ep.srv.BaseContext = func(net.Listener) context.Context { return base }
	}
	for _, ep := range r.eps {
		go func() { r.errs <- ep.srv.Serve(ep.ln) }()
	}
	return nil
}

// Path returns the name of the capture file new exchanges go to, for
// messages.
func (r *Recording) Path() string { return r.files.path() }

// Rotated reports whether the capture is split into files.
func (r *Recording) Rotated() bool { return r.files.rot.on() }

// Endpoints returns the recording's endpoints, listening.
func (r *Recording) Endpoints() []*Endpoint { return r.eps }

// Errs receives the error of an endpoint's server that stopped serving.
func (r *Recording) Errs() <-chan error { return r.errs }

func (r *Recording) closeListeners() {
	for _, ep := range r.eps {
		if ep.ln != nil {
			ep.ln.Close()
		}
	}
}

// Stop lets in-flight streams run on for up to grace, cuts the rest,
// waits until every exchange is recorded to its end and closes the
// capture. It says on log when it had to cut streams.
func (r *Recording) Stop(grace time.Duration, log io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	var cut sync.Once
	say := func() { cut.Do(func() { fmt.Fprintf(log, "cutting streams still open after %s\n", grace) }) }
	var wg sync.WaitGroup
	for _, ep := range r.eps {
		wg.Go(func() {
			if err := ep.srv.Shutdown(ctx); err != nil {
				say()
				r.cut(ErrShutdown) // before the connections close: the cause is seam's
				ep.srv.Close()
			}
		})
		if ep.fwd != nil {
			// The decrypted tunnels were taken over from the server.
			wg.Go(func() {
				if err := ep.fwd.Shutdown(ctx); err != nil {
					say()
				}
			})
		}
	}
	wg.Wait()
	// Switched connections (WebSockets) are not the servers' any more: give
	// them what is left of the grace, then cut them too.
	recorded := make(chan struct{})
	go func() {
		for _, ep := range r.eps {
			ep.rec.Wait()
		}
		close(recorded)
	}()
	select {
	case <-recorded:
	case <-ctx.Done():
		say()
		r.cut(ErrShutdown)
		<-recorded
	}
	r.cut(ErrShutdown)
	return r.files.end()
}

// Report says on log what reached the capture, beside the number of
// exchanges the endpoints answered when some were not recorded. Only
// exchanges whose last line was written count as recorded.
func (r *Recording) Report(log io.Writer) {
	served := r.served.Load()
	st, closed := r.files.writerStats()
	to := r.Path()
	if r.Rotated() {
		slices.Sort(closed) // their names sort in the order they were written
		switch len(closed) {
		case 0:
			to = ""
		case 1:
			to = closed[0]
		default:
			to = fmt.Sprintf("%d files, %s to %s", len(closed), closed[0], closed[len(closed)-1])
		}
	}
	line := fmt.Sprintf("%s recorded to %s", units.Count(st.Recorded, "exchange"), to)
	if to == "" {
		line = fmt.Sprintf("%s recorded: no capture file kept (none had an exchange)", units.Count(st.Recorded, "exchange"))
	}
	if lost := served - int64(st.Recorded); lost > 0 {
		line += fmt.Sprintf(" (%d served, %d not recorded)", served, lost)
	}
	switch cut := st.Incomplete - st.Skipped; {
	case st.Skipped > 0 && cut > 0:
		line += fmt.Sprintf("; %d of them without their data and %d cut short: recording fell behind the wire", st.Skipped, cut)
	case st.Skipped > 0:
		line += fmt.Sprintf("; %d of them without their data: recording fell behind the wire", st.Skipped)
	case cut > 0:
		line += fmt.Sprintf("; %d of them cut short: recording fell behind the wire", cut)
	}
	fmt.Fprintln(log, line)
}
