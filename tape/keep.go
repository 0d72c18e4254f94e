package tape

import (
	"bytes"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/seam-dev/seam/internal/jsstring"
)

// Keep makes a [Writer] hand over each exchange it records, whole, as a
// [Reader] of the capture would read it, once the line that completed it
// has been written: a consumer (seam's OTLP export) gets the exchanges of
// a recording without reading the capture back. The exchange holds
// copies of its chunks' bytes; a client chunk that is the upstream's
// bytes (a mirrored or referring line) shares the upstream chunk's copy,
// as a reader's does.
//
// What the copies take is bounded: Held counts the bytes of every
// exchange gathered and not yet released (its chunks' bytes and records), and an exchange whose chunks
// would take it past Max is not kept (Drop hears it, once); the recording
// itself is never held up. The Writers of a recording's files share one
// Held.
type Keep struct {
	// Max bounds the chunk bytes held (DefaultKeepMax when 0).
	Max int64
	// Held counts the bytes held; nil for a count of the Writer's own.
	Held *atomic.Int64
	// Sandwich says the capture is a sandwich recording's (engine profile
	// "external"): an exchange is whole once both its legs ended.
	Sandwich bool
	// Done hears each exchange, from the Writer's goroutine, once the line
	// that completed it was written (or, for one that never completed, as
	// the Writer closes, with the anomalies a reader would find). It must
	// not block. release must be called, once, when x is no longer used.
	Done func(x *Exchange, release func())
	// Drop hears, once, an exchange not handed over: its chunks would have
	// taken Held past Max.
	Drop func(ex int)
}

// DefaultKeepMax is Keep.Max's default.
const DefaultKeepMax = 64 << 20

// chunkSize is what a kept chunk's record takes besides its bytes: the
// Chunk in its side's list (twice that, as the list grows by doubling).
const chunkSize = 2 * int(unsafe.Sizeof(Chunk{}))

// kept is an exchange a Writer is gathering for its Keep. Its legs (a
// sandwich has two ExchangeWriters for one exchange) share it.
type kept struct {
	k  *Keep
	ex int
	mu sync.Mutex
	g  *gatherer
	gx *gathering
	// held is what its chunks take of k.Held.
	held int64
	// arena is the block the copies of its chunks' bytes are cut from
	// (see copyData).
	arena []byte
	// dropped is set once it is not kept; handed once it is complete.
	dropped, handed bool
}

// keptFor returns the exchange ex gathers into, making it when new; nil
// when the Writer keeps nothing.
func (w *Writer) keptFor(ex int) *kept {
	if w.opts.Keep == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if k := w.keeping[ex]; k != nil {
		return k
	}
	g := newGatherer("")
	gx, _ := g.get(ex, 0)
	k := &kept{k: w.opts.Keep, ex: ex, g: g, gx: gx}
	w.keeping[ex] = k
	return k
}

// add files rec (a request, response, end or note, decoded from its line,
// or a chunk holding its own bytes) and reports whether that completed
// the exchange: the line that carries it is then marked, and the
// exchange handed over once it is written.
func (k *kept) add(rec Record) (complete bool) {
	if k == nil {
		return false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.dropped || k.handed {
		return false
	}
	k.g.add(rec)
	if rec.Kind != KindChunk && k.gx.done(k.k.Sandwich) {
		k.handed = true
		return true
	}
	return false
}

// whole marks the exchange complete as it is and reports whether it was
// still being gathered.
func (k *kept) whole() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.dropped || k.handed || k.gx == nil {
		return false
	}
	k.handed = true
	return true
}

// line files rec, a line of the exchange other than a chunk, as a reader
// of the capture reads it back (see keptRequest), and returns k when it
// completed the exchange (the line is then marked, and the exchange
// handed over once it is written), else nil.
func (k *kept) line(rec func() Record) *kept {
	if k == nil || !k.add(rec()) {
		return nil
	}
	return k
}

// keptRequest, keptResponse, keptEnd and keptNote return what a reader
// reads back of a line written from r (or e, n): its strings as the
// encoder writes them (invalid UTF-8 as U+FFFD), its headers an object
// of arrays, its body, copied, absent when empty. TestKeepIsWhatAReaderReads
// holds them to the Decoder's output.
func keptRequest(r Request) *Request {
	r.Side, r.Method, r.Scheme, r.Host, r.URL, r.Paired = Side(text(string(r.Side))), text(r.Method), text(r.Scheme), text(r.Host), text(r.URL), text(r.Paired)
	r.Headers = keptHeaders(r.Headers)
	if len(r.Body) == 0 {
		r.Body = nil
	} else {
		r.Body = bytes.Clone(r.Body)
	}
	return &r
}

func keptResponse(r Response) *Response {
	r.Side, r.Headers = Side(text(string(r.Side))), keptHeaders(r.Headers)
	return &r
}

func keptEnd(e End) *End {
	e.Side, e.Outcome, e.Error, e.SHA256 = Side(text(string(e.Side))), Outcome(text(string(e.Outcome))), text(e.Error), text(e.SHA256)
	return &e
}

func keptNote(n Note) *Note {
	n.Text = text(n.Text)
	return &n
}

func keptHeaders(h Headers) Headers {
	out := make(Headers, len(h))
	for k, vs := range h {
		c := make([]string, len(vs))
		for i, v := range vs {
			c[i] = text(v)
		}
		out[text(k)] = c
	}
	return out
}

// text is s as a string field of a line holds it.
func text(s string) string {
	return jsstring.Decode(s)
}

// chunk files a chunk of data, copied, and returns the copy; held, when
// not nil, is bytes kept already (a mirrored line's, or the upstream chunk
// a client chunk refers to) and is used as it is.
func (k *kept) chunk(c Chunk, held []byte) []byte {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.dropped || k.handed {
		return nil
	}
	n := int64(chunkSize)
	if held == nil {
		n += int64(len(c.Data))
	}
	if k.take(n) {
		return nil
	}
	if held == nil {
		held = k.copyData(c.Data)
	}
	c.Data, c.Ref, c.RefOff, c.Mirrored, c.MirrorT, c.MirrorOff, c.mirror, c.refLen = held, false, 0, false, 0, 0, false, 0
	k.gx.chunk(&c, 0)
	return held
}

// keepBlock is the size of the blocks a kept exchange copies its chunks'
// bytes into: a stream's chunks are small and many (an event each, at a
// model's pace), and one allocation per chunk was most of what keeping
// cost the recording. An exchange's last block is partly empty: at most
// keepBlock bytes more than Keep.Max counts per exchange held.
const keepBlock = 16 << 10

// copyData returns a copy of b cut from k's arena (a new block when the
// current one has no room; a chunk over a quarter of a block is copied on
// its own). Called with k.mu held.
func (k *kept) copyData(b []byte) []byte {
	if len(b) > keepBlock/4 {
		return bytes.Clone(b)
	}
	if cap(k.arena)-len(k.arena) < len(b) {
		k.arena = make([]byte, 0, keepBlock)
	}
	n := len(k.arena)
	k.arena = append(k.arena, b...)
	return k.arena[n:len(k.arena):len(k.arena)]
}

// upstreamData returns the bytes of the upstream chunk at off, n of them,
// among the last two kept: what a client chunk referring to them holds.
func (k *kept) upstreamData(off, n int64) []byte {
	if k == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.gx == nil {
		return nil
	}
	cs := k.gx.x.Upstream.Chunks
	for i := len(cs) - 1; i >= 0 && i >= len(cs)-2; i-- {
		if cs[i].Off == off && int64(len(cs[i].Data)) == n {
			return cs[i].Data
		}
	}
	return nil
}

// take counts n more bytes held and reports whether that drops the
// exchange (past Max). Called with k.mu held.
func (k *kept) take(n int64) (dropped bool) {
	max := k.k.Max
	if max <= 0 {
		max = DefaultKeepMax
	}
	if k.k.Held.Add(n) <= max {
		k.held += n
		return false
	}
	k.k.Held.Add(-n - k.held)
	k.held, k.dropped = 0, true
	k.gx = nil
	k.g = nil
	if k.k.Drop != nil {
		k.k.Drop(k.ex)
	}
	return true
}

// hand gives the exchange, complete (or cut by the Writer's end), to Done.
func (k *kept) hand() {
	k.mu.Lock()
	if k.dropped || k.gx == nil {
		k.mu.Unlock()
		return
	}
	x := k.gx.finish()
	held := k.held
	k.gx, k.g = nil, nil
	k.mu.Unlock()
	var once sync.Once
	release := func() { once.Do(func() { k.k.Held.Add(-held) }) }
	if k.k.Done == nil {
		release()
		return
	}
	k.k.Done(x, release)
}

// keptMark is a line in a slab that completed a kept exchange, by the
// offset just past it.
type keptMark struct {
	pos int
	k   *kept
}

// handOver hands over the kept exchanges whose completing line is among
// the first n bytes of a slab written.
func (w *Writer) handOver(marks []keptMark, n int) {
	for _, m := range marks {
		if m.pos > n {
			return
		}
		w.mu.Lock()
		if w.keeping[m.k.ex] == m.k {
			delete(w.keeping, m.k.ex)
		}
		w.mu.Unlock()
		m.k.hand()
	}
}

// handRest hands over, as the Writer closes, the kept exchanges that never
// completed (a reader finds them cut short), unless writing failed: the
// capture then lacks lines they have. What a completed exchange whose
// last line was not written holds is let go.
func (w *Writer) handRest(failed bool) {
	w.mu.Lock()
	rest := make([]*kept, 0, len(w.keeping))
	for _, k := range w.keeping {
		rest = append(rest, k)
	}
	clear(w.keeping)
	w.mu.Unlock()
	slices.SortFunc(rest, func(a, b *kept) int { return a.ex - b.ex })
	for _, k := range rest {
		k.mu.Lock()
		cut := !k.handed && !k.dropped && !failed
		k.handed = true
		k.mu.Unlock()
		if cut {
			k.hand()
			continue
		}
		k.mu.Lock()
		k.k.Held.Add(-k.held)
		k.held, k.gx, k.g = 0, nil, nil
		k.mu.Unlock()
	}
}
