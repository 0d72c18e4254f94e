package record

import (
	"net/http"

	"github.com/seam-dev/seam/tape"
)

// clientWriter records what is written to the client. It implements
// FlushError and Unwrap so http.ResponseController (which ReverseProxy uses
// to flush every write) reaches the real writer.
type clientWriter struct {
	http.ResponseWriter
	x *exchange

	wroteHeader bool
	status      int
	watch       *streamWatch
	bytes       int64
	writeErr    error
	// unmirrored is set when a write was not the upstream bytes in mirror
	// mode, which passthrough never does; the client side is then parsed
	// from that write on.
	unmirrored bool
}

func (w *clientWriter) WriteHeader(code int) {
	defer w.x.catch("response", nil)
	if code >= 100 && code < 200 {
		w.ResponseWriter.WriteHeader(code) // informational: forwarded, not recorded
		return
	}
	if w.wroteHeader {
		return
	}
	w.wroteHeader = true
	w.status = code
	h := w.Header()
	w.watch = newStreamWatch(h.Get("Content-Type"), h.Get("Content-Encoding"), w.x.req.URL.Path, w.x.budget)
	if w.x.guard(tape.Client, w.watch) != nil {
		// The guard checks what this side's own watch decodes.
		w.x.mirror = false
	}
	if w.x.rec.records(tape.Client) {
		w.x.tw.Response(tape.Response{
			Side: tape.Client, T: w.x.rec.now(), Status: code, Headers: w.x.rec.opts.Redaction.Headers(h),
		})
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *clientWriter) Write(p []byte) (n int, err error) {
	x := w.x
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if x.isBroken() {
		return 0, errBroken // a tap broke: the client's answer is broken off
	}
	defer x.catch("client", &err)
	t := x.rec.now()
	n, err = w.ResponseWriter.Write(p)
	if n > 0 {
		if err == nil {
			// The proxy flushes after every write; flushing first here
			// puts the bytes on the wire before they are recorded. (Its
			// own flush then finds nothing to send.)
			w.flush()
		}
		x.testTap("client", p[:n])
		upOff := int64(-1)
		if same(p, x.lastUp) {
			upOff = x.lastUpOff
		}
		mirrored := n == len(p) && upOff >= 0 && x.recordMirror(t, p)
		if !mirrored {
			x.recordPending() // the upstream chunk these bytes came from goes first
		}
		if !x.mirror || upOff < 0 || w.unmirrored {
			w.unmirrored = x.mirror
			w.watch.feed(p[:n])
		}
		c := tape.Chunk{Side: tape.Client, T: t, Data: p[:n], Ref: upOff >= 0, RefOff: upOff}
		switch {
		case mirrored: // recorded with its upstream chunk
		case x.clGuard != nil:
			x.clGuard.chunk(c)
		case x.clMask != nil && c.Ref:
			x.clMask.ChunkSeen(c, x.upSeen) // the bytes the upstream masker just saw
		case x.clMask != nil:
			x.clMask.Chunk(c)
		}
		w.bytes += int64(n)
	}
	if err != nil && w.writeErr == nil {
		w.writeErr = err
	}
	return n, err
}

// FlushError flushes the underlying writer. The proxy may call it from a
// timer goroutine.
func (w *clientWriter) FlushError() error { return w.flush() }

func (w *clientWriter) flush() error {
	if f, ok := w.ResponseWriter.(interface{ FlushError() error }); ok {
		return f.FlushError() // the server's writer: no controller to allocate
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap returns the underlying writer, for http.ResponseController.
func (w *clientWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
