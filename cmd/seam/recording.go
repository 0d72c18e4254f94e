package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seam-dev/seam/capture"
	"github.com/seam-dev/seam/listen"
	"github.com/seam-dev/seam/tape"
)

// recordLeg is one listener of a recording: where it listens, what it
// forwards to and which part of the exchanges it records.
type recordLeg struct {
	addr     string
	upstream *url.URL
	leg      capture.Leg
	ln       net.Listener
	rec      *capture.Recorder
	srv      *http.Server
	// handler, if set, makes the leg's HTTP handler from its recorder
	// (seam serve answers from captures and hands only misses to it).
	handler func(*capture.Recorder) http.Handler
	// transport, if set, sends the leg's requests upstream.
	transport http.RoundTripper
	// forward, if set, is the forward proxy in front of the leg's
	// recorder (upstream is then nil): it is the leg's handler.
	forward *forwardSetup
	fwd     *capture.Forward
}

// recording is a running recording proxy: its legs (one, or two around a
// proxy under test) and the capture they write.
type recording struct {
	legs []*recordLeg
	out  io.WriteCloser
	path string // where the capture goes, for messages
	w    *tape.Writer
	errs chan error // a leg's server stopped
	// cut cancels the context of every request, ending the connections the
	// servers no longer track (WebSockets, once switched), with
	// capture.ErrShutdown as the cause: the exchanges it cuts are recorded
	// as cut by seam's shutdown.
	cut context.CancelCauseFunc
	// drops counts the exchanges that lost data because the disk fell
	// behind.
	drops atomic.Int64
}

// recordingConfig says what startRecording starts.
type recordingConfig struct {
	output   string    // capture file, directory, or "-"
	stdout   io.Writer // for output "-"
	discard  bool      // record nothing: the capture goes nowhere
	fsync    bool
	upstream *url.URL                       // written in the header; nil in forward mode
	insecure bool                           // written in the header
	engine   tape.Engine                    // written in the header
	note     func(legs []*recordLeg) string // a capture-level note, once listening; nil for none
	legs     []*recordLeg
	onDone   func(capture.Summary)
	server   listen.Options // every leg's server; listen is set per leg
	// redaction adds --redact patterns to the built-in rules; nil for none.
	redaction *tape.Redaction
	log       io.Writer // where write errors are reported as they happen
}

// startRecording listens on every leg's address, opens the capture, writes
// its header and starts serving. On error nothing is left open.
func startRecording(cfg recordingConfig) (_ *recording, err error) {
	base, cut := context.WithCancelCause(context.Background())
	r := &recording{legs: cfg.legs, errs: make(chan error, len(cfg.legs)), cut: cut}
	if cfg.log == nil {
		cfg.log = io.Discard
	}
	defer func() {
		if err != nil {
			r.closeListeners()
		}
	}()
	for _, l := range r.legs {
		if l.ln, err = net.Listen("tcp", l.addr); err != nil {
			return nil, fmt.Errorf("listen: %w", err)
		}
		l.ln = listen.HintTLS(l.ln, l.ln.Addr().String(), l.forward != nil, cfg.server.Log)
	}
	if cfg.discard {
		r.out = nopCloser{io.Discard}
	} else if r.out, r.path, err = openCapture(cfg.output, cfg.stdout, time.Now()); err != nil {
		return nil, err
	}
	start := time.Now()
	r.w = tape.NewWriter(r.out, tape.WriterOptions{
		Sync:     cfg.fsync,
		Compress: strings.HasSuffix(r.path, tape.CompressedExt),
		OnError: func(err error, inFlight int) {
			// Said at once: the proxy keeps serving, so nothing else shows it.
			fmt.Fprintf(cfg.log, "seam: capture %s: %v: recording stopped; %s in flight will not be recorded to the end, later ones not at all (clients are still served)\n",
				r.path, err, plural(inFlight, "exchange"))
		},
		OnDrop: func(ex int) {
			if r.drops.Add(1) == 1 {
				fmt.Fprintf(cfg.log, "seam: capture %s: recording fell behind the wire (the disk, or the CPU the capture writer gets): exchange #%d and others that start before it catches up are not recorded, so those under way stay whole (their clients still get every byte; a note in the capture marks each)\n", r.path, ex)
			}
		},
	})
	h := newHeader(start, cfg.upstream, cfg.engine)
	h.Insecure = cfg.insecure
	r.w.Header(h)
	if cfg.note != nil {
		r.w.Note(tape.Note{Text: cfg.note(r.legs)})
	}
	legEngine := cfg.engine
	if cfg.engine.Profile == "external" {
		legEngine = tape.Engine{} // the legs pass through; the proxy under test shapes
	}
	numbering := &capture.Numbering{Notify: func(msg string) { fmt.Fprintln(cfg.log, msg) }}
	for _, l := range r.legs {
		l.rec, err = capture.New(capture.Options{
			Upstream: l.upstream, Engine: legEngine, Writer: r.w, Start: start,
			Leg: l.leg, Numbering: numbering, OnDone: cfg.onDone, Transport: l.transport, Redaction: cfg.redaction,
		})
		var h http.Handler = l.rec
		if err == nil && l.handler != nil {
			h = l.handler(l.rec)
		}
		if err == nil && l.forward != nil {
			l.fwd, err = l.forward.proxy(h)
			h = l.fwd
		}
		if err != nil {
			r.w.Close()
			r.out.Close()
			return nil, err
		}
		so := cfg.server
		so.Listen, so.Forward = l.addr, l.forward != nil
		l.srv = listen.NewServer(h, so)
		l.srv.BaseContext = func(net.Listener) context.Context { return base }
	}
	for _, l := range r.legs {
		go func() { r.errs <- l.srv.Serve(l.ln) }()
	}
	return r, nil
}

func (r *recording) closeListeners() {
	for _, l := range r.legs {
		if l.ln != nil {
			l.ln.Close()
		}
	}
}

// stop lets in-flight streams run on for up to grace, cuts the rest,
// waits until every exchange is recorded to its end and closes the
// capture. It says on log when it had to cut streams.
func (r *recording) stop(grace time.Duration, log io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	var cut sync.Once
	say := func() { cut.Do(func() { fmt.Fprintf(log, "cutting streams still open after %s\n", grace) }) }
	var wg sync.WaitGroup
	for _, l := range r.legs {
		wg.Go(func() {
			if err := l.srv.Shutdown(ctx); err != nil {
				say()
				r.cut(capture.ErrShutdown) // before the connections close: the cause is seam's
				l.srv.Close()
			}
		})
		if l.fwd != nil {
			// The decrypted tunnels were taken over from the server.
			wg.Go(func() {
				if err := l.fwd.Shutdown(ctx); err != nil {
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
		for _, l := range r.legs {
			l.rec.Wait()
		}
		close(recorded)
	}()
	select {
	case <-recorded:
	case <-ctx.Done():
		say()
		r.cut(capture.ErrShutdown)
		<-recorded
	}
	r.cut(capture.ErrShutdown)
	if err := errors.Join(r.w.Close(), r.out.Close()); err != nil {
		return fmt.Errorf("capture %s: %w", r.path, err)
	}
	return nil
}

// report says what reached the capture: served is the number of exchanges
// the proxy answered. Only exchanges whose last line was written count as
// recorded.
func (r *recording) report(log io.Writer, served int64) {
	st := r.w.Stats()
	line := fmt.Sprintf("%s recorded to %s", plural(st.Recorded, "exchange"), r.path)
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

// tuneGC has the garbage collector keep the heap within half again its live
// size (GOGC=50) while recording, unless the user set GOGC or GOMEMLIMIT: a
// proxy holding many streams allocates little per chunk, so collecting
// more often costs little, and memory is what it runs short of.
func tuneGC(e *env) {
	if e.getenv("GOGC") == "" && e.getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(50)
	}
}
