package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/seam-dev/seam/tape"
)

// ServerOptions configures a [Server].
type ServerOptions struct {
	// Speed scales the recorded gaps between chunks: 1 is the original
	// timing, 2 twice as fast, 0 sends everything at once.
	Speed float64
	// Faults are injected into every response, in order.
	Faults []Fault
	// Seed seeds the choices faults make (which event, where to split);
	// the same seed gives the same bytes.
	Seed uint64
}

// Server is a mock upstream: it answers each request with the upstream side
// of the recorded exchange it matches, chunk by chunk, flushing each chunk
// at its recorded time. A request that matches no exchange gets a 404 whose
// JSON body names the closest exchange and why it did not match.
type Server struct {
	opts      ServerOptions
	exchanges []*tape.Exchange
}

// NewServer returns a Server answering from the exchanges of caps. Exchanges
// without a recorded request or upstream response are skipped.
func NewServer(caps []*tape.Capture, opts ServerOptions) *Server {
	s := &Server{opts: opts}
	for _, c := range caps {
		for _, x := range c.Exchanges {
			if x.Request != nil && x.Upstream.Response != nil {
				s.exchanges = append(s.exchanges, x)
			}
		}
	}
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body bytes.Buffer
	if r.Body != nil {
		// Request bodies are small JSON documents; matching needs all of one.
		if _, err := body.ReadFrom(http.MaxBytesReader(w, r.Body, 64<<20)); err != nil {
			http.Error(w, "seam: read request body: "+err.Error(), http.StatusBadRequest)
			return
		}
	}
	x, why := s.match(r.Method, r.URL.Path, body.Bytes())
	if x == nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{
			"message": "seam: no recorded exchange matches " + r.Method + " " + r.URL.Path + ": " + why,
			"type":    "seam_no_match",
		}})
		return
	}
	s.play(r.Context(), w, x)
}

// match finds the exchange recorded for method, path and body: the same
// method and path, and a body equal as JSON (or byte for byte).
func (s *Server) match(method, path string, body []byte) (*tape.Exchange, string) {
	why, sameEndpoint := "no exchanges loaded", false
	for _, x := range s.exchanges {
		req := x.Request
		rpath, _, _ := strings.Cut(req.URL, "?")
		switch {
		case req.Method != method || rpath != path:
			if why == "no exchanges loaded" {
				why = fmt.Sprintf("no exchange has that endpoint; exchange %d is %s %s", x.Ex, req.Method, rpath)
			}
		case sameJSON(req.Body, body):
			return x, ""
		case !sameEndpoint:
			sameEndpoint = true
			why = fmt.Sprintf("exchange %d has the same endpoint but another request body", x.Ex)
		}
	}
	return nil, why
}

func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// skipHeaders are not replayed: they describe the original connection, or
// were redacted when recorded.
var skipHeaders = map[string]bool{
	"content-length": true, "transfer-encoding": true, "connection": true,
	"keep-alive": true, "content-encoding": true, "date": true,
}

func (s *Server) play(ctx context.Context, w http.ResponseWriter, x *tape.Exchange) {
	if f, ok := statusFault(s.opts.Faults); ok {
		writeStatusFault(w, f)
		return
	}
	chunks := x.Upstream.Chunks
	aborted := false
	if len(s.opts.Faults) > 0 {
		chunks = applyFaults(chunks, s.opts.Faults, rand.New(rand.NewPCG(s.opts.Seed, uint64(x.Ex))))
		for _, f := range s.opts.Faults {
			if f.Kind == FaultDisconnect {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeoutCause(ctx, f.D, errDisconnect)
				defer cancel()
			}
		}
		defer func() {
			if aborted {
				panic(http.ErrAbortHandler) // drop the connection mid-stream
			}
		}()
	}
	resp := x.Upstream.Response
	for k, vs := range resp.Headers {
		if skipHeaders[k] {
			continue
		}
		for _, v := range vs {
			if v != tape.Redacted {
				w.Header().Add(k, v)
			}
		}
	}
	// Time zero is the request: the recorded wait for the response line and
	// every gap between chunks are played again, scaled by Speed.
	p := pacer{start: time.Now(), zero: x.Request.T, speed: s.opts.Speed}
	defer p.stop()
	if !p.wait(ctx, resp.T) {
		aborted = context.Cause(ctx) == errDisconnect
		return
	}
	w.WriteHeader(resp.Status)
	rc := http.NewResponseController(w)
	rc.Flush()
	for _, c := range chunks {
		if !p.wait(ctx, c.T) {
			aborted = context.Cause(ctx) == errDisconnect
			return
		}
		if _, err := w.Write(c.Data); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
	if end := x.Upstream.End; end != nil && (end.Outcome == tape.UpstreamError || end.Outcome == tape.Timeout) {
		// The recorded upstream broke off mid-stream: break off the same way.
		panic(http.ErrAbortHandler)
	}
}

// pacer sleeps until recorded times come due, scaled by speed.
type pacer struct {
	start time.Time
	zero  int64 // recorded time that maps to start
	speed float64
	timer *time.Timer
}

// wait blocks until the recorded time t is due, and reports false if ctx
// ended first.
func (p *pacer) wait(ctx context.Context, t int64) bool {
	if p.speed <= 0 || t <= p.zero {
		return ctx.Err() == nil
	}
	due := time.Duration(float64(t-p.zero) / p.speed)
	d := due - time.Since(p.start)
	if d <= 0 {
		return ctx.Err() == nil
	}
	if p.timer == nil {
		p.timer = time.NewTimer(d)
	} else {
		p.timer.Reset(d)
	}
	select {
	case <-ctx.Done():
		return false
	case <-p.timer.C:
		return true
	}
}

func (p *pacer) stop() {
	if p.timer != nil {
		p.timer.Stop()
	}
}

// errDisconnect is the cause of the context a disconnect fault ends.
var errDisconnect = errors.New("injected disconnect")
