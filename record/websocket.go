package record

import (
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/wsframe"
)

// upgraded records the start of a protocol switch (a WebSocket): both sides
// get the 101 response line, and the connection the proxy copies through
// is tapped in both directions. The shaping engine does not run.
func (r *Recorder) upgraded(x *exchange, resp *http.Response) error {
	rwc, ok := resp.Body.(io.ReadWriteCloser)
	if !ok {
		return errors.New("101 switching protocols response with a body that cannot be written")
	}
	h := r.opts.Redaction.Headers(resp.Header)
	t := r.now()
	x.upFirst = max(t, 1)
	// The two directions are recorded from two goroutines, each its own
	// bytes.
	x.tw.Separate()
	for _, side := range []tape.Side{tape.Upstream, tape.Client} {
		if r.records(side) {
			x.tw.Response(tape.Response{Side: side, T: t, Status: resp.StatusCode, Headers: h})
		}
	}
	c := &wsConn{x: x, rwc: rwc}
	c.up.side, c.down.side = tape.Upstream, tape.Client
	ext := resp.Header.Values("Sec-WebSocket-Extensions")
	for _, d := range []*wsDirection{&c.up, &c.down} {
		if x.mask(d.side) != nil {
			d.guard = newWSGuard(x, c, d.side, wsframe.Negotiated(ext, d.side == tape.Client))
		}
	}
	x.ws = c
	resp.Body = c
	return nil
}

// wsConn is the upstream connection of a switched protocol: what is read
// from it went from the upstream toward the client (the upstream side),
// what is written to it came from the client (the client side). Each frame
// is recorded as a chunk when its last byte has passed.
type wsConn struct {
	x        *exchange
	rwc      io.ReadWriteCloser
	up, down wsDirection
	// inflated counts the bytes both directions' guards inflated, against
	// the cap per session.
	inflated atomic.Int64
}

// wsDirection records one direction of the connection.
type wsDirection struct {
	mu     sync.Mutex
	side   tape.Side
	split  wsframe.Splitter
	guard  *wsGuard // nil for a side not recorded
	bytes  int64
	frames int
	ended  bool
	err    error // how the direction ended, when it failed
}

// Read and Write run on the proxy's two copying goroutines, which no
// server recovers: a panic in the tap breaks the exchange (guard.go).
func (c *wsConn) Read(p []byte) (n int, err error) {
	if c.x.isBroken() {
		return 0, errBroken
	}
	defer c.x.catch("websocket", &err)
	n, err = c.rwc.Read(p)
	c.x.testTap("websocket", p[:n])
	c.up.record(c.x, p[:n], err)
	return n, err
}

// Write records the client's bytes before they go upstream, so that a
// secret a client's message carries is known before the upstream can
// echo it.
func (c *wsConn) Write(p []byte) (n int, err error) {
	if c.x.isBroken() {
		return 0, errBroken
	}
	defer c.x.catch("websocket", &err)
	c.x.testTap("websocket", p)
	c.down.record(c.x, p, nil)
	n, err = c.rwc.Write(p)
	if err != nil {
		c.down.record(c.x, nil, err)
	}
	return n, err
}

// Close closes the upstream connection; the proxy calls it once either
// direction is done (possibly after the handler returned).
func (c *wsConn) Close() error { return c.rwc.Close() }

// record notes bytes that passed in direction d, and its end when err is
// set.
func (d *wsDirection) record(x *exchange, p []byte, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ended {
		return // the exchange was finished; the connection is being torn down
	}
	if len(p) > 0 {
		d.split.Feed(p, func(pc wsframe.Piece) { d.frame(x, pc) })
	}
	if err != nil && d.err == nil {
		d.err = err
	}
}

// frame records pc, a whole frame (or a piece of a long one, or at the
// end what came of a cut one), as the next chunk of direction d, through
// its guard. d.mu is held.
func (d *wsDirection) frame(x *exchange, pc wsframe.Piece) {
	if d.guard != nil {
		d.guard.piece(pc, x.rec.now())
	}
	d.bytes += int64(len(pc.Data))
	d.frames++
}

// finish ends direction d: it records a partial last frame and returns the
// direction's outcome, its byte count and frame count.
func (d *wsDirection) finish(x *exchange) (tape.Outcome, string, int64, int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.ended {
		d.ended = true
		d.split.Flush(func(pc wsframe.Piece) { d.frame(x, pc) })
		if d.guard != nil {
			if note := d.guard.finish(); note != "" {
				x.tw.Note(x.rec.now(), note)
			}
		}
	}
	switch {
	case d.split.Close:
		return tape.Complete, "", d.bytes, d.frames
	case d.side == tape.Client:
		return tape.ClientAborted, "", d.bytes, d.frames
	case d.err == nil || errors.Is(d.err, io.EOF):
		// The connection ended (or the client left) without a close frame
		// from the upstream.
		if d.err == nil {
			return tape.ClientAborted, "", d.bytes, d.frames
		}
		return tape.Truncated, "", d.bytes, d.frames
	case errors.Is(d.err, net.ErrClosed):
		return tape.ClientAborted, "", d.bytes, d.frames
	}
	return tape.UpstreamError, d.err.Error(), d.bytes, d.frames
}

// finishWebSocket records the end of both directions of a switched
// protocol and reports the exchange.
func (x *exchange) finishWebSocket() {
	c := x.ws
	upOutcome, upErr, upBytes, upFrames := c.up.finish(x)
	x.upBytes = upBytes
	x.endUpstream(upOutcome, errorText(upErr), upFrames)
	outcome, _, bytes, frames := c.down.finish(x)
	x.finishEnd(outcome, "", http.StatusSwitchingProtocols, bytes, frames)
}

// errorText turns a recorded error message back into an error, nil when
// empty.
func errorText(s string) error {
	if s == "" {
		return nil
	}
	return errors.New(s)
}
