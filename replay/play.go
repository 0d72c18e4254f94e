package replay

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/seam-dev/seam/coding"
	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/tape"
)

// play answers with exchange x. A body recorded compressed is sent as
// recorded, with its Content-Encoding, to a client whose Accept-Encoding
// (accept) allows it; otherwise it is decoded, sent without
// Content-Encoding, and DecodedHeader says so. Faults apply to the decoded
// events. It reports whether the answer must be broken off (a disconnect
// fault, or a recorded upstream that broke off mid-stream): the caller
// then drops the connection.
func (s *Server) play(ctx context.Context, w http.ResponseWriter, x *tape.Exchange, accept string) (broken bool) {
	if f, ok := statusFault(s.opts.Faults); ok {
		writeStatusFault(w, f)
		return false
	}
	chunks := x.Upstream.Chunks
	capped := false
	if ce := contentEncoding(x.Upstream.Response.Headers); ce != "" {
		if len(s.opts.Faults) == 0 && coding.Accepts(accept, ce) {
			w.Header().Set("Content-Encoding", ce)
		} else if dec, ok, err := decodedBody(chunks, x.Upstream.Response.Headers); ok {
			chunks = dec
			w.Header().Set(DecodedHeader, ce)
			// A body that decodes past seam's cap is sent up to the cap,
			// then broken off: the client must not take it for whole.
			capped = errors.As(err, new(*coding.CapError))
		} else {
			w.Header().Set("Content-Encoding", ce) // a coding seam cannot decode: as recorded
		}
	}
	pl := plan{chunks: chunks, extra: make([]time.Duration, len(chunks))}
	if len(s.opts.Faults) > 0 {
		pl = applyFaults(pl.chunks, s.opts.Faults, rand.New(rand.NewPCG(s.opts.Seed, uint64(x.Ex))))
		for _, f := range s.opts.Faults {
			if f.Kind == FaultDisconnect {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeoutCause(ctx, f.D, errDisconnect)
				defer cancel()
			}
		}
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
	if w.Header().Get("Content-Type") == "" && w.Header().Get("Content-Encoding") == "" {
		// A recording that kept no Content-Type (a cassette, an imported
		// body): the type of the body's framing, not net/http's guess
		// (text/plain for an event stream).
		if ct := framing.TypeOf((&tape.SideData{Chunks: chunks}).Body()); ct != "" {
			w.Header().Set("Content-Type", ct)
		}
	}
	// Time zero is the request: the recorded wait for the response line and
	// every gap between chunks are played again, scaled by Speed.
	p := pacer{start: time.Now(), zero: x.Request.T, speed: s.opts.Speed}
	defer p.stop()
	if !p.wait(ctx, resp.T, pl.head) {
		return context.Cause(ctx) == errDisconnect
	}
	w.WriteHeader(resp.Status)
	rc := http.NewResponseController(w)
	rc.Flush()
	for i, c := range pl.chunks {
		if !p.wait(ctx, c.T, pl.extra[i]) {
			return context.Cause(ctx) == errDisconnect
		}
		if _, err := w.Write(c.Data); err != nil {
			return false
		}
		if err := rc.Flush(); err != nil {
			return false
		}
	}
	if capped {
		return true
	}
	// A recorded upstream that broke off mid-stream breaks off the same way.
	end := x.Upstream.End
	return end != nil && (end.Outcome == tape.UpstreamError || end.Outcome == tape.Timeout)
}

// contentEncoding returns a recorded response's Content-Encoding, "" when
// it has none.
func contentEncoding(h tape.Headers) string {
	return strings.Join(h["content-encoding"], ", ")
}

// decodedBody decodes the chunks of a body recorded with the
// Content-Encoding of h, for a client that does not accept it or for
// faults, which work on events: ok is false when the body is not
// compressed, or compressed with a coding seam does not decode. A body cut
// short or corrupt decodes to what could be, and one that decodes past
// the cap per body (coding.MaxBody) to the bytes up to it; err says so.
func decodedBody(chunks []tape.Chunk, h tape.Headers) (dec []tape.Chunk, ok bool, err error) {
	ce := contentEncoding(h)
	if ce == "" {
		return nil, false, nil
	}
	dec, err = tape.DecodeChunks(chunks, ce, nil)
	return dec, dec != nil, err
}

// pacer sleeps until recorded times come due, scaled by speed.
type pacer struct {
	start time.Time
	zero  int64 // recorded time that maps to start
	speed float64
	timer *time.Timer
}

// wait blocks until the recorded time t, scaled by the speed, plus extra
// (a fault's wall-clock wait, not scaled) is due, and reports false if ctx
// ended first.
func (p *pacer) wait(ctx context.Context, t int64, extra time.Duration) bool {
	due := extra
	if p.speed > 0 && t > p.zero {
		due += time.Duration(float64(t-p.zero) / p.speed)
	}
	if due <= 0 {
		return ctx.Err() == nil
	}
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

func firstValue(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}
