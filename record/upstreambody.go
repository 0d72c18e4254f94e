package record

import (
	"bytes"
	"errors"
	"io"

	"github.com/seam-dev/seam/shape"
	"github.com/seam-dev/seam/tape"
)

// upstreamBody replaces the upstream response body: every Read from the
// upstream is recorded as a chunk, fed to the engine, and the engine's frames
// are what the proxy's copy loop reads and writes to the client.
type upstreamBody struct {
	x           *exchange
	rc          io.ReadCloser
	engine      shape.Engine
	passthrough bool
	watch       *streamWatch
	// dec decodes the upstream body for an engine that reshapes it (the
	// client then gets it decoded), nil otherwise. It pulls the wire bytes
	// from wire, which records each upstream read, so what one read
	// decodes to is never gathered: the engine gets it a buffer at a time.
	dec  io.ReadCloser
	wire *wireSource

	// held is the error (io.EOF mostly) a passthrough read returned with
	// bytes, returned by the next read.
	held error

	buf    []byte   // read buffer when the engine is not passthrough
	frames [][]byte // frames not yet handed to the copy loop
	cur    []byte   // rest of the frame being handed out
	err    error    // sticky end of the upstream body
}

func (b *upstreamBody) Read(p []byte) (n int, err error) {
	if b.x.isBroken() {
		return 0, errBroken
	}
	defer b.x.catch("upstream", &err)
	b.x.recordPending() // before a read reuses the buffer it is in
	if b.passthrough {
		if b.err != nil {
			return 0, b.err
		}
		if err := b.held; err != nil {
			b.held = nil
			b.finish(err)
			return 0, err
		}
		n, err = b.rc.Read(p)
		b.record(p[:n])
		if err != nil && n > 0 {
			// The end comes with the next read: the client gets these
			// bytes first, so the capture can pair them as any other.
			b.held = err
			return n, nil
		}
		if err != nil {
			b.finish(err)
			return n, err
		}
		return n, nil
	}
	for {
		if len(b.cur) > 0 {
			n := copy(p, b.cur)
			b.cur = b.cur[n:]
			return n, nil
		}
		if len(b.frames) > 0 {
			b.cur, b.frames = b.frames[0], b.frames[1:]
			continue
		}
		if b.err != nil {
			return 0, b.err
		}
		if b.buf == nil {
			b.buf = copyBuffers{}.Get()
		}
		var n int
		var err error
		if b.dec != nil {
			n, err = b.dec.Read(b.buf)
			if err != nil {
				// A decoding failure is the watch's to report; the rest
				// of the wire body is recorded all the same.
				err = b.wire.drain()
			}
		} else {
			b.x.recordPending() // a chunk that made no frame: its buffer is read into again
			n, err = b.rc.Read(b.buf)
			b.record(b.buf[:n])
		}
		in := b.buf[:n]
		b.frames = b.engine.Push(b.frames[:0], in)
		if err != nil {
			b.frames = b.engine.Close(b.frames)
			b.finish(err)
			b.err = err
		}
	}
}

func (b *upstreamBody) record(p []byte) {
	if len(p) == 0 {
		return
	}
	x := b.x
	x.testTap("upstream", p)
	t := x.rec.now()
	if x.upFirst == 0 {
		x.upFirst = max(t, 1)
	}
	x.upPending = pendingChunk{ok: true, t: t, data: p}
	x.lastUp, x.lastUpOff = p, x.upBytes
	x.upBytes += int64(len(p))
}

func (b *upstreamBody) finish(err error) {
	b.err = err
	b.x.recordPending() // the outcome needs the last chunk parsed
	b.watch.close()
	outcome := upstreamOutcome(b.x.req, err, b.watch.terminal())
	if outcome == tape.Complete {
		switch {
		case b.watch.corrupt() != nil:
			outcome, err = tape.UpstreamError, b.watch.corrupt()
		case b.watch.cutByCoding():
			outcome, err = tape.Truncated, b.watch.codingErr
		case b.watch.unfinished():
			outcome = tape.Truncated
		}
	}
	b.x.endUpstream(outcome, err, b.watch.events())
}

// Close is called by the proxy when it is done with the body. If the upstream
// had not ended by then, the client went away and the proxy gave up on it.
func (b *upstreamBody) Close() error {
	if err := b.held; b.err == nil && err != nil {
		b.held = nil
		b.finish(err) // the upstream had ended: the client went before its last read
	}
	if b.err == nil {
		b.err = errClientGone
		b.x.recordPending()
		b.watch.close()
		outcome := tape.ClientAborted
		if b.watch.terminal() {
			outcome = tape.ClientClosedAfterDone
		}
		b.x.endUpstream(outcome, nil, b.watch.events())
	}
	if b.buf != nil {
		// The proxy reads no more: the buffer and the frames and chunks
		// that view it are done with.
		copyBuffers{}.Put(b.buf)
		b.buf = nil
	}
	if b.dec != nil {
		b.dec.Close()
		b.wire.release()
	}
	return b.rc.Close()
}

// wireSource is what the decoder of an engine's body reads: the upstream
// body, each read recorded as a chunk (as the passthrough path records
// them). It reads into a buffer of its own, which the decoder's read-ahead
// never moves, so a chunk read stays intact until recordPending records it
// before the next read.
type wireSource struct {
	b   *upstreamBody
	buf []byte
	cur []byte // bytes read and not yet handed to the decoder
	err error  // the upstream body's end
}

func (w *wireSource) Read(p []byte) (int, error) {
	for len(w.cur) == 0 {
		if w.err != nil {
			return 0, w.err
		}
		w.fill()
	}
	n := copy(p, w.cur)
	w.cur = w.cur[n:]
	return n, nil
}

// fill reads the next upstream bytes, recording them.
func (w *wireSource) fill() {
	if w.buf == nil {
		w.buf = copyBuffers{}.Get()
	}
	w.b.x.recordPending() // before the read reuses the buffer it is in
	n, err := w.b.rc.Read(w.buf)
	w.b.record(w.buf[:n])
	w.cur = w.buf[:n]
	if err != nil {
		w.err = err
	}
}

// drain reads and records the rest of the upstream body once the decoder
// has stopped, and returns how it ended.
func (w *wireSource) drain() error {
	w.cur = nil
	for w.err == nil {
		w.fill()
	}
	return w.err
}

func (w *wireSource) release() {
	if w.buf != nil {
		copyBuffers{}.Put(w.buf)
		w.buf = nil
	}
}

var errClientGone = errors.New("client went away")

// same reports whether a client write p is the upstream chunk up, unchanged:
// in passthrough it is the very slice read, otherwise compare the bytes.
func same(p, up []byte) bool {
	if len(p) != len(up) || len(p) == 0 {
		return false
	}
	return &p[0] == &up[0] || bytes.Equal(p, up)
}
