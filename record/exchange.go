package record

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/seam-dev/seam/coding"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// exchange is the recording state of one request/response pair.
type exchange struct {
	rec *Recorder
	ex  int
	// paired says how a sandwich's back leg paired the request with the
	// client's (tape.Request's Paired); "" on other legs.
	paired string
	// model is the model the request names (its body's "model", else its
	// path's), for the summary line.
	model string
	t0    int64
	req   *http.Request
	body  *bodyTap
	tw    *tape.ExchangeWriter
	// file is the capture file the exchange goes to (Options.Files); ""
	// for a recorder given a Writer.
	file string

	// budget is what the watches may decode of the exchange's bodies (the
	// decoded copies they check): coding.MaxStreamBody a body,
	// coding.MaxStreamExchange in all.
	budget *coding.Budget

	reqOnce sync.Once
	// upMask and clMask write each side's chunks with the request's secret
	// values masked; nil for a side this recorder does not record.
	upMask, clMask *tape.Masker
	// secrets are the request's secret values known at its start, and
	// upGuard and clGuard write the chunks of a compressed side instead of
	// its masker (see echoGuard); nil for a side that is not compressed.
	// guardMu guards secrets and the guard fields: the request line (and
	// with it the body's secrets) may be written on the transport's
	// goroutine while the response begins on the handler's.
	guardMu          sync.Mutex
	secrets          []string
	upGuard, clGuard *echoGuard

	// Upstream side, written by the proxy's copy loop (the handler goroutine).
	upOnce    sync.Once
	upEnd     chan struct{} // closed when the upstream side has ended
	upFirst   int64         // t of the first upstream byte; 0 when none
	upBytes   int64
	upEvents  int
	upOutcome tape.Outcome
	upErr     string

	// The last upstream chunk read: a client write of the same bytes is
	// recorded as a reference to it. The slice aliases the read buffer and
	// is valid until the next read, which the proxy's copy loop makes only
	// after writing these bytes to the client.
	lastUp    []byte
	lastUpOff int64
	// mirror is set when the passthrough engine makes the client side the
	// upstream side's bytes: the client side is not parsed again, its
	// events are counted from upWatch.
	mirror  bool
	upWatch *streamWatch
	// upPending is an upstream chunk read but not yet recorded (nor fed to
	// upWatch): that happens once its bytes have been written and flushed
	// to the client, so recording adds nothing to the time a byte takes to
	// reach the client. Its data aliases the read buffer; it is recorded
	// before the next upstream read reuses it.
	upPending pendingChunk
	// upSeen is what the upstream masker found in the last upstream chunk
	// recorded: the client masker need not look through the same bytes.
	upSeen tape.Seen

	ws *wsConn // the tapped connection, once the upstream switched protocols

	// brk is set when recording the exchange failed (see guard.go).
	brk breakage
	// clEnded is set once the client side's end is recorded (by the
	// handler's goroutine); answered once a broken exchange's client was
	// answered with an error of seam's.
	clEnded, answered bool
}

// pendingChunk is an upstream chunk waiting to be recorded.
type pendingChunk struct {
	ok   bool
	t    int64
	data []byte
}

// recordPending records the upstream chunk waiting, if any, and feeds it to
// the upstream side's watch.
func (x *exchange) recordPending() {
	if p := &x.upPending; p.ok {
		p.ok = false
		if x.isBroken() {
			// The watch or the masker may be what broke: the chunk is
			// counted, not recorded.
			x.tw.Withhold(tape.Upstream, int64(len(p.data)))
			return
		}
		x.upWatch.feed(p.data)
		c := tape.Chunk{Side: tape.Upstream, T: p.t, Data: p.data}
		if x.upGuard != nil {
			x.upSeen = tape.Seen{}
			x.upGuard.chunk(c)
		} else if x.upMask != nil {
			x.upSeen = x.upMask.Chunk(c)
		}
	}
}

// recordMirror records the upstream chunk waiting and the client's copy of
// it, data, written at t, in one line, when neither side's masker has
// anything to mask or hold back in them, and reports whether it did. The
// caller has found data to be the last upstream chunk read, which is the
// one waiting while one waits.
func (x *exchange) recordMirror(t int64, data []byte) bool {
	p := &x.upPending
	if !p.ok || x.isBroken() || x.upGuard != nil || x.clGuard != nil || x.upMask == nil || x.clMask == nil {
		return false
	}
	seen, ok := x.upMask.Clear(data, tape.Seen{})
	if !ok {
		return false
	}
	if _, ok := x.clMask.Clear(data, seen); !ok {
		return false
	}
	p.ok = false
	x.upSeen = seen
	x.upWatch.feed(p.data)
	x.tw.Mirror(p.t, t, data)
	return true
}

func contextWith(req *http.Request, x *exchange) context.Context {
	return context.WithValue(req.Context(), exchangeKey{}, x)
}

func exchangeFrom(req *http.Request) *exchange {
	return req.Context().Value(exchangeKey{}).(*exchange)
}

// masks sets up the maskers of the sides this recorder records, looking
// for secrets (the secret values of the request's headers and URL).
func (x *exchange) masks(secrets []string) {
	x.secrets = secrets
	if x.rec.records(tape.Upstream) {
		x.upMask = tape.NewMasker(secrets, x.rec.opts.Redaction, x.write(tape.Upstream))
	}
	if x.rec.records(tape.Client) {
		x.clMask = tape.NewMasker(secrets, x.rec.opts.Redaction, x.write(tape.Client))
	}
}

// write returns what writes a chunk of side s, masked or known clean, to
// the capture. A client chunk may come with the upstream offset of the
// bytes it repeats (Ref, RefOff): the writer refers to them if the bytes
// are still the same.
func (x *exchange) write(s tape.Side) func(tape.Chunk) {
	if s == tape.Upstream {
		return func(c tape.Chunk) { x.tw.Chunk(tape.Upstream, c.T, c.Data) }
	}
	return func(c tape.Chunk) {
		upOff := int64(-1)
		if c.Ref {
			upOff = c.RefOff
		}
		x.tw.ClientChunk(c.T, c.Data, upOff)
	}
}

// mask returns the masker of side s, nil when this recorder does not
// record it.
func (x *exchange) mask(s tape.Side) *tape.Masker {
	if s == tape.Upstream {
		return x.upMask
	}
	return x.clMask
}

// guard returns an echo guard for a side compressed in a coding watch
// decodes, when the recorder records that side; nil otherwise.
func (x *exchange) guard(side tape.Side, watch *streamWatch) *echoGuard {
	if !watch.compressed() || x.mask(side) == nil {
		return nil
	}
	x.guardMu.Lock()
	defer x.guardMu.Unlock()
	g := newEchoGuard(watch, x.secrets, x.rec.opts.Redaction, x.write(side), func(n int64) { x.tw.Withhold(side, n) })
	if side == tape.Upstream {
		x.upGuard = g
	} else {
		x.clGuard = g
	}
	return g
}

// endMask writes the chunks m (or g, for a compressed side) still holds
// and, when it masked or dropped anything, a note saying so.
func (x *exchange) endMask(m *tape.Masker, g *echoGuard, side tape.Side) {
	if g != nil {
		g.watch.close()
		if note := g.close(side); note != "" {
			x.tw.Note(x.rec.now(), note)
		}
		return
	}
	if m == nil {
		return
	}
	m.Flush()
	if n := m.Masked(); n > 0 {
		x.tw.Note(x.rec.now(), fmt.Sprintf(
			"seam: %d secret value(s) of the request, echoed in the %s side's chunks, were masked at the same length (\"[redacted]***\"); offsets and chunk boundaries are kept", n, side))
	}
}

// writeRequest records the request line once: when its body has been sent
// upstream, or when the exchange ends without that (an upstream that never
// read it), with what was sent.
func (x *exchange) writeRequest() {
	x.reqOnce.Do(func() {
		wrote := false
		if !x.safely("request", func() { x.recordRequest(&wrote) }) && !wrote {
			// Redacting the request failed: the line keeps what needs no
			// parsing, and says the body is not there.
			scheme, host := x.origin()
			x.tw.Request(tape.Request{
				Side: x.requestSide(), T: x.t0, Method: x.req.Method, Scheme: scheme, Host: host,
				URL: x.req.URL.EscapedPath(), Headers: tape.Headers{}, BodyTruncated: true,
			})
		}
		x.body.release()
	})
}

// requestSide is the side of this recorder's request line: the client's,
// or in a sandwich's back leg the request as the proxy under test sent it.
func (x *exchange) requestSide() tape.Side {
	if x.rec.opts.Leg == Back {
		return tape.Upstream
	}
	return ""
}

// recordRequest writes the request line, redacted, and sets *wrote once it
// did.
func (x *exchange) recordRequest(wrote *bool) {
	body, cut := x.body.snapshot()
	if x.rec.opts.Leg == Front {
		x.rec.numbering.describe(x.ex, newFingerprint(body)) // before the proxy can have it all
	}
	side := x.requestSide()
	red := x.rec.opts.Redaction
	sent := len(body)
	body, secrets, note := red.CodedBody(body, x.req.Header.Get("Content-Type"), x.req.Header.Get("Content-Encoding"))
	if body == nil && sent > 0 {
		cut = true // withheld: a compressed body seam cannot look through
	}
	for _, m := range []*tape.Masker{x.upMask, x.clMask} {
		if m != nil {
			m.Add(secrets)
		}
	}
	x.guardMu.Lock()
	x.secrets = append(x.secrets, secrets...)
	for _, g := range []*echoGuard{x.upGuard, x.clGuard} {
		if g != nil {
			g.add(secrets)
		}
	}
	x.guardMu.Unlock()
	scheme, host := x.origin()
	starved, kept := x.body.cutForMemory()
	x.tw.Request(tape.Request{
		Side: side, T: x.t0, Method: x.req.Method,
		Scheme: scheme, Host: host,
		URL:     red.URL(x.req.URL),
		Headers: red.Headers(x.req.Header),
		Body:    body, BodyTruncated: cut,
		Paired: x.paired,
	})
	*wrote = true
	x.model = gjson.GetBytes(body, "model").String()
	if x.model == "" {
		x.model = protocol.ModelFromURL(x.req.URL.Path)
	}
	if note != "" {
		x.tw.Note(x.rec.now(), note)
	}
	if starved {
		x.tw.Note(x.rec.now(), fmt.Sprintf(
			"request body recorded up to %d bytes: the requests in flight held the %s seam keeps for request bodies (the whole body went upstream)",
			kept, units.Bytes(x.rec.opts.MaxHeldRequestBodies)))
	}
}

// origin is the scheme and host a forward-mode request went to; empty for a
// recorder with one upstream, which the capture header names.
func (x *exchange) origin() (scheme, host string) {
	if x.rec.opts.Upstream != nil {
		return "", ""
	}
	return x.req.URL.Scheme, x.req.URL.Host
}

// endUpstream records the upstream side's end line once.
func (x *exchange) endUpstream(outcome tape.Outcome, err error, events int) {
	x.upOnce.Do(func() {
		x.safely("upstream", x.recordPending) // the side's chunks go before its end
		x.upEvents = events
		if err != nil && outcome != tape.Complete && !errors.Is(err, io.EOF) {
			x.upErr = err.Error()
		}
		if x.rec.records(tape.Upstream) {
			x.safely("upstream", func() { x.endMask(x.upMask, x.upGuard, tape.Upstream) })
		}
		switch outcome {
		case tape.ClientAborted, tape.UpstreamError, tape.Truncated:
			if x.cutByShutdown() {
				outcome = tape.RecorderShutdown
			}
		}
		x.upOutcome, x.upErr = x.brokenOutcome(outcome, x.upErr)
		if x.rec.records(tape.Upstream) {
			x.tw.End(tape.Upstream, x.rec.now(), x.upOutcome, x.upErr)
		}
		if x.rec.opts.Leg == Back {
			var first time.Time
			if x.upFirst > 0 {
				first = x.rec.start.Add(time.Duration(x.upFirst))
			}
			x.rec.numbering.backEnded(x.ex, first, x.upBytes, x.upEvents)
		}
		close(x.upEnd)
	})
}

// ErrShutdown is the cause with which seam cancels the context of the
// requests it cuts at its own shutdown (the servers' BaseContext, made with
// context.WithCancelCause): a stream still open when the grace for streams
// in flight ran out. An exchange cut that way ends as
// [tape.RecorderShutdown], not as if its client or upstream had left.
var ErrShutdown = errors.New("seam is shutting down")

// cutByShutdown reports whether seam's own shutdown cancelled the
// exchange's request (before anything else did).
func (x *exchange) cutByShutdown() bool {
	return errors.Is(context.Cause(x.req.Context()), ErrShutdown)
}

// upstreamOutcome classifies how the upstream side ended. err is the read
// error (io.EOF at a clean end); terminal says whether the stream's terminal
// event was seen.
func upstreamOutcome(req *http.Request, err error, terminal bool) tape.Outcome {
	if err == nil || errors.Is(err, io.EOF) {
		// The upstream ended its body: a client that hangs up as the last
		// bytes reach it (the request context is cancelled when it closes
		// the connection) aborted nothing.
		return tape.Complete
	}
	return failedOutcome(req, err, terminal)
}

// failedOutcome classifies an upstream side that did not end cleanly: the
// request failed, or reading its body did with err.
func failedOutcome(req *http.Request, err error, terminal bool) tape.Outcome {
	if req.Context().Err() != nil {
		if terminal {
			return tape.ClientClosedAfterDone
		}
		return tape.ClientAborted
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return tape.Timeout
	}
	return tape.UpstreamError
}

// finish records how the exchange ended, once the handler is done with it:
// the rest of the request body, the upstream side's end if it has not
// ended, the client side's end, and the exchange's summary. Should any of
// that panic, the exchange is broken and its missing end lines say so.
func (x *exchange) finish(w *clientWriter) {
	if x.safely("end", func() { x.body.settle(); x.finishClient(w) }) || x.clEnded {
		return
	}
	x.endBroken(w)
}

// endBroken records the end lines of a broken exchange that are not yet
// written, reading nothing more from its taps.
func (x *exchange) endBroken(w *clientWriter) {
	x.writeRequest()
	if c := x.ws; c != nil {
		// The proxy's copiers may still be reading: their taps stop first.
		x.safely("websocket", func() { c.up.finish(x) })
		x.safely("websocket", func() { c.down.finish(x) })
	}
	x.endUpstream(tape.RecorderError, nil, 0)
	status := w.status
	if x.ws != nil {
		status = http.StatusSwitchingProtocols
	}
	x.finishEnd(tape.RecorderError, x.brokenErr(), status, w.bytes, 0)
}

// finishClient records the client side's end line and reports the exchange.
func (x *exchange) finishClient(w *clientWriter) {
	x.writeRequest()
	if x.isBroken() {
		x.endBroken(w)
		return
	}
	if x.ws != nil {
		x.finishWebSocket()
		return
	}
	if w.watch == nil {
		w.watch = noStream()
	}
	w.watch.close()
	x.recordPending()
	if x.mirror && !w.unmirrored {
		// The client got a prefix of the upstream bytes (all of them
		// unless it went away): count its events from the upstream parse.
		w.watch.mirror(x.upWatch, w.bytes)
	}
	// The upstream side has always ended by now unless the proxy never got a
	// response body (a panic before it); record that as an upstream error.
	select {
	case <-x.upEnd:
	default:
		x.endUpstream(tape.UpstreamError, errors.New("proxy ended before the upstream responded"), 0)
	}
	var outcome tape.Outcome
	var errText string
	switch x.upOutcome {
	case tape.UpstreamError, tape.Timeout:
		outcome, errText = x.upOutcome, x.upErr
	default:
		// A cancelled request context means the client left only while the
		// upstream was still sending: a client that hangs up after the last
		// byte (or a server closing its connections) aborted nothing.
		upstreamDone := x.upOutcome == tape.Complete || x.upOutcome == tape.Truncated
		gone := w.writeErr != nil || (x.req.Context().Err() != nil && !upstreamDone) ||
			x.upOutcome == tape.ClientAborted || x.upOutcome == tape.ClientClosedAfterDone
		switch {
		case gone && w.watch.terminal():
			outcome = tape.ClientClosedAfterDone
		case gone:
			outcome = tape.ClientAborted
			if w.writeErr != nil {
				errText = w.writeErr.Error()
			}
		case w.watch.corrupt() != nil:
			outcome, errText = tape.UpstreamError, w.watch.corrupt().Error()
		case w.watch.cutByCoding():
			outcome, errText = tape.Truncated, w.watch.codingErr.Error()
		case w.watch.unfinished():
			outcome = tape.Truncated
		default:
			outcome = tape.Complete
		}
	}
	x.finishEnd(outcome, errText, w.status, w.bytes, w.watch.events())
}

// finishEnd records the client side's end line and reports the exchange.
func (x *exchange) finishEnd(outcome tape.Outcome, errText string, status int, bytes int64, events int) {
	if x.clEnded {
		return
	}
	t := x.rec.now()
	switch x.rec.opts.Leg {
	case Back:
		x.clEnded = true
		return // the front leg writes the client side and reports the exchange
	case Front:
		x.rec.numbering.done(x.ex)
	}
	x.safely("client", func() { x.endMask(x.clMask, x.clGuard, tape.Client) })
	if (outcome == tape.ClientAborted || outcome == tape.Truncated) && x.cutByShutdown() {
		outcome = tape.RecorderShutdown
	}
	outcome, errText = x.brokenOutcome(outcome, errText)
	x.tw.End(tape.Client, t, outcome, errText)
	x.clEnded = true // a panic from here on (the summary's) finds the end written
	f := x.rec.opts.OnDone
	if f == nil {
		if x.rec.opts.Leg == Front {
			x.rec.numbering.forget(x.ex)
		}
		return
	}
	_, host := x.origin()
	s := Summary{
		Ex: x.ex, Method: x.req.Method, Path: x.req.URL.EscapedPath(), Status: status,
		Host: host, Model: x.model, File: x.file,
		Outcome: outcome, Error: errText,
		UpstreamBytes: x.upBytes, ClientBytes: bytes,
		UpstreamEvents: x.upEvents, ClientEvents: events,
		Duration: time.Duration(t - x.t0),
	}
	if x.upFirst > 0 {
		s.TTFB = time.Duration(x.upFirst - x.t0)
	}
	if x.rec.opts.Leg != Front {
		f(s)
		return
	}
	// In a sandwich, what this leg read came from the proxy under test; the
	// upstream numbers are the back leg's, which may still be reading (a
	// proxy that answers before the upstream ends). Wait for them without
	// holding the client's response open.
	x.rec.live.Add(1)
	go func() {
		defer x.rec.live.Done()
		defer x.catch("summary", nil) // the exchange has ended: only a note can say so
		s.UpstreamBytes, s.UpstreamEvents, s.TTFB = 0, 0, 0
		l, ok, began := x.rec.numbering.awaitBack(x.ex)
		if !began {
			// No upstream leg will come: the exchange is whole as it is.
			x.tw.Whole()
		}
		s.NoUpstream = !ok
		if ok {
			s.UpstreamBytes, s.UpstreamEvents = l.bytes, l.events
			if !l.first.IsZero() {
				s.TTFB = l.first.Sub(x.rec.start.Add(time.Duration(x.t0)))
			}
		}
		f(s)
	}()
}
