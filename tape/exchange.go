package tape

import (
	"fmt"
	"hash/crc32"
	"sync/atomic"

	"github.com/seam-dev/seam/internal/units"
)

// ExchangeWriter writes the lines of one exchange through a [Writer] and
// keeps what the format needs per side: the byte offset of the next chunk,
// the SHA-256 of the body so far, and the last two upstream chunks, which a
// client chunk made of the same bytes refers to instead of repeating them
// ([ExchangeWriter.Mirror] writes a passthrough pair in one line).
//
// When the Writer's queue is full, an ExchangeWriter does not wait: it stops
// recording the exchange's data (its chunks), writes a note saying so, and
// its end lines carry the number of bytes not recorded. The stream it
// records is never held up by the disk. An exchange whose data begins while
// the queue is more than three quarters full is not recorded at all (but for its
// request, responses, ends and a note): shedding the new exchanges first
// keeps those under way whole, where a writer that only fell behind would
// cut every exchange in flight short.
//
// The methods of one side must be called from one goroutine at a time, and
// both sides from the same one unless [ExchangeWriter.Separate] was called;
// Request may be called from another.
type ExchangeWriter struct {
	w     *Writer
	ex    int
	lossy atomic.Bool
	// begun is set once the exchange's first chunk came; skipped when it
	// came while the writer was behind, so none of its data is recorded.
	// (A WebSocket's two directions come from two goroutines.)
	begun, skipped atomic.Bool
	// tracked is set once the exchange counts as in flight in the Writer.
	tracked atomic.Bool

	up, cl sideState
	// The last two upstream chunks that were queued (last[0] the latest),
	// with the CRC-32C of their bytes: a client chunk of the same bytes is
	// written as a reference to one of them. (A chunk the masker held back
	// reaches the client side after the upstream chunk that follows it.)
	last [2]upChunk
	// h hashes the chunks queued: while nothing was dropped, it hashes
	// every byte.
	h sideHashes
	// k gathers the exchange for the Writer's Keep; nil without one.
	k *kept
}

// upChunk is an upstream chunk a client chunk may refer to.
type upChunk struct {
	off, len int64
	crc      uint32
	ok       bool
}

// queued notes an upstream chunk queued at off.
func (x *ExchangeWriter) queued(off int64, data []byte) {
	x.last[1] = x.last[0]
	x.last[0] = upChunk{off: off, len: int64(len(data)), crc: crc32.Checksum(data, castagnoli), ok: true}
}

// sideState is what an ExchangeWriter keeps of one side.
type sideState struct {
	bytes      int64
	unrecorded int64
	// rec is the chunk being encoded by enc, its bound appendChunk.
	rec Chunk
	enc func([]byte) []byte
}

func (st *sideState) appendChunk(b []byte) []byte { return AppendChunk(b, st.rec) }

// Exchange returns a writer for the lines of exchange ex.
func (w *Writer) Exchange(ex int) *ExchangeWriter {
	return &ExchangeWriter{w: w, ex: ex, k: w.keptFor(ex)}
}

// track counts the exchange as in flight until its client end is written.
func (x *ExchangeWriter) track() {
	if x.tracked.Swap(true) {
		return
	}
	x.w.mu.Lock()
	x.w.open[x.ex] = struct{}{}
	x.w.mu.Unlock()
}

func (x *ExchangeWriter) side(s Side) *sideState {
	if s == Upstream {
		return &x.up
	}
	return &x.cl
}

// Separate says that the two sides are not one stream's bytes (a
// WebSocket's two directions) and are written from two goroutines: each
// side is hashed on its own. Call it before any chunk is written.
func (x *ExchangeWriter) Separate() { x.h.separate() }

// Bytes returns the body bytes of side s so far, recorded or not.
func (x *ExchangeWriter) Bytes(s Side) int64 { return x.side(s).bytes }

// Request writes r (r.Ex is set to the exchange). A request line is always
// queued: the bodies of the requests in flight are bounded by the recorder.
func (x *ExchangeWriter) Request(r Request) {
	r.Ex = x.ex
	if r.Side == "" {
		x.track()
	}
	done := x.k.line(func() Record { return Record{Kind: KindRequest, Request: keptRequest(r)} })
	x.w.appendLine(func(b []byte) []byte { return AppendRequest(b, r) }, false, lineMeta{kept: done})
}

// Response writes r (r.Ex is set to the exchange).
func (x *ExchangeWriter) Response(r Response) {
	r.Ex = x.ex
	if r.Side == Client {
		x.track()
	}
	done := x.k.line(func() Record { return Record{Kind: KindResponse, Response: keptResponse(r)} })
	x.w.appendLine(func(b []byte) []byte { return AppendResponse(b, r) }, false, lineMeta{kept: done})
}

// Chunk writes data, read from the upstream or written to the client at t,
// as the next chunk of side s. The data is copied; the caller may reuse it
// when Chunk returns.
func (x *ExchangeWriter) Chunk(s Side, t int64, data []byte) {
	x.chunk(s, t, data, false, 0)
}

// ClientChunk writes data, written to the client at t, as the next client
// chunk. upOff is the upstream offset the data came from, unchanged, or -1:
// when the data is one of the last two upstream chunks written, at that
// offset, with the same bytes (their CRC-32C is compared: a masker may have
// changed one side's copy), the line refers to it instead of repeating the
// bytes.
func (x *ExchangeWriter) ClientChunk(t int64, data []byte, upOff int64) {
	ref := false
	for _, u := range x.last {
		if upOff >= 0 && u.ok && upOff == u.off && int64(len(data)) == u.len && crc32.Checksum(data, castagnoli) == u.crc {
			ref = true
			break
		}
	}
	x.chunk(Client, t, data, ref, upOff)
}

// Mirror writes data as the next upstream chunk, read at tUp, and as the
// next client chunk, written unchanged at tClient, in one line (the
// upstream line carries "client"): what passthrough writes for each read.
// Each side keeps its own offset. The data is copied.
func (x *ExchangeWriter) Mirror(tUp, tClient int64, data []byte) {
	x.track()
	up, cl := &x.up, &x.cl
	off, clOff := up.bytes, cl.bytes
	up.bytes += int64(len(data))
	cl.bytes += int64(len(data))
	if !x.put(up, Chunk{Ex: x.ex, Side: Upstream, T: tUp, Off: off, Data: data, Mirrored: true, MirrorT: tClient, MirrorOff: clOff}) {
		up.unrecorded += int64(len(data))
		cl.unrecorded += int64(len(data))
		return
	}
	x.h.upstream(data)
	x.h.client(data, true, off)
	if x.k != nil {
		held := x.k.chunk(Chunk{Ex: x.ex, Side: Upstream, T: tUp, Off: off, Data: data}, nil)
		x.k.chunk(Chunk{Ex: x.ex, Side: Client, T: tClient, Off: clOff, Data: data}, held)
	}
	// The client has these bytes already: no chunk of its refers to them
	// (no checksum to take), but the line is the last upstream one.
	x.last[1], x.last[0] = x.last[0], upChunk{}
}

// put queues rec, the next chunk line of st's side, and reports whether it
// did: not when the exchange is not recorded (or no longer is).
func (x *ExchangeWriter) put(st *sideState, rec Chunk) bool {
	if !x.begun.Load() && x.begun.CompareAndSwap(false, true) {
		if queued, behind := x.w.behind(); behind {
			x.skip(rec.T, queued)
		}
	}
	if x.lossy.Load() {
		return false
	}
	st.rec = rec
	if st.enc == nil {
		st.enc = st.appendChunk // bound once: no allocation per chunk
	}
	queued := x.w.appendLine(st.enc, true, lineMeta{})
	st.rec.Data = nil
	if !queued {
		x.drop(rec.T)
	}
	return queued
}

// castagnoli is the CRC-32C table, computed in hardware where there is one.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func (x *ExchangeWriter) chunk(s Side, t int64, data []byte, ref bool, refOff int64) {
	if s == Client {
		x.track()
	}
	st := x.side(s)
	off := st.bytes
	st.bytes += int64(len(data))
	if !x.put(st, Chunk{Ex: x.ex, Side: s, T: t, Off: off, Data: data, Ref: ref, RefOff: refOff}) {
		st.unrecorded += int64(len(data))
		return
	}
	if s == Upstream {
		x.h.upstream(data)
		x.queued(off, data)
		x.k.chunk(Chunk{Ex: x.ex, Side: s, T: t, Off: off, Data: data}, nil)
		return
	}
	x.h.client(data, ref, refOff)
	if x.k != nil {
		var held []byte
		if ref {
			held = x.k.upstreamData(refOff, int64(len(data)))
		}
		x.k.chunk(Chunk{Ex: x.ex, Side: s, T: t, Off: off, Data: data}, held)
	}
}

// drop marks the exchange as losing data, once: it says so in a note and
// tells the Writer's OnDrop.
func (x *ExchangeWriter) drop(t int64) {
	if x.lossy.Swap(true) {
		return
	}
	x.Note(t, fmt.Sprintf("not recorded from here on: this exchange's data (the capture writer had %s of chunks waiting for the disk; the stream itself went on)", units.Bytes(int64(x.w.max))))
	if f := x.w.opts.OnDrop; f != nil {
		f(x.ex)
	}
}

// skip marks the exchange as not recorded, from its first chunk on: the
// writer had queued bytes of chunks waiting, more than three quarters of what it holds.
func (x *ExchangeWriter) skip(t int64, queued int) {
	x.skipped.Store(true)
	x.lossy.Store(true)
	x.Note(t, fmt.Sprintf("not recorded: this exchange's data (it began while the capture writer had %s of chunks waiting for the disk, more than three quarters of the %s it holds; exchanges already under way were kept whole; the stream itself went on)", units.Bytes(int64(queued)), units.Bytes(int64(x.w.max))))
	if f := x.w.opts.OnDrop; f != nil {
		f(x.ex)
	}
}

// Withhold counts n bytes of side s, which went over the wire, as not
// recorded: the recorder chose not to write them (a note on the exchange
// says why). Nothing of the side is written after them; its end line
// counts them as unrecorded, and has no SHA-256.
func (x *ExchangeWriter) Withhold(s Side, n int64) {
	st := x.side(s)
	st.bytes += n
	st.unrecorded += n
	if s == Upstream {
		x.last = [2]upChunk{}
	}
}

// End writes the end line of side s: how it ended at t, its byte count and,
// when every byte of it was recorded, its SHA-256. The client side's end
// line is the exchange's last.
func (x *ExchangeWriter) End(s Side, t int64, outcome Outcome, errText string) {
	st := x.side(s)
	e := End{Ex: x.ex, Side: s, T: t, Outcome: outcome, Bytes: st.bytes, Error: errText, Unrecorded: st.unrecorded}
	if sum, ok := x.h.sum(s); ok && st.unrecorded == 0 {
		e.SHA256 = sum
	}
	m := lineMeta{ex: x.ex, kept: x.k.line(func() Record { return Record{Kind: KindEnd, End: keptEnd(e)} })}
	if s == Client {
		x.track()
		m.end, m.lossy, m.skipped = true, x.lossy.Load(), x.skipped.Load()
	}
	x.w.appendLine(func(b []byte) []byte { return AppendEnd(b, e) }, false, m)
}

// Whole says that no more lines will come for the exchange although a
// reader would wait for more (a sandwich's exchange whose upstream leg
// never came): with the Writer's Keep, the exchange is handed over as it
// is once its lines are written, rather than when the Writer closes.
func (x *ExchangeWriter) Whole() {
	if x.k == nil || !x.k.whole() {
		return
	}
	x.w.appendLine(func(b []byte) []byte { return b }, false, lineMeta{kept: x.k})
}

// Note writes a note on the exchange.
func (x *ExchangeWriter) Note(t int64, text string) {
	n := Note{Ex: x.ex, T: t, Text: text}
	done := x.k.line(func() Record { return Record{Kind: KindNote, Note: keptNote(n)} })
	x.w.appendLine(func(b []byte) []byte { return AppendNote(b, n) }, false, lineMeta{kept: done})
}
