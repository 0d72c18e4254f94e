package tape

import (
	"bufio"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// WriterOptions configures a [Writer].
type WriterOptions struct {
	// Sync makes the writer call Sync after each batch of lines when the
	// underlying writer has a Sync method (an *os.File does): slower, but a
	// line is on disk before the next batch is written.
	Sync bool
	// Compress writes the capture as a zstd stream (a ".ndjson.zst" file).
	// The stream is flushed whenever an exchange has ended and, at the
	// latest, a short moment after the last line, so a crash leaves every
	// complete exchange readable.
	Compress bool
	// MaxQueued bounds the bytes of encoded chunk lines waiting for the
	// disk (the other lines are few per exchange). Zero means
	// [DefaultMaxQueued]. When the disk is slower than the wire
	// and the queue is full, an [ExchangeWriter] stops recording the data of
	// its exchange instead of waiting (the stream it records goes on), and
	// the record methods of Writer itself wait for room.
	MaxQueued int
	// OnError, if set, is called once, from the writer goroutine, as soon as
	// a write fails; nothing is written after that. inFlight is the number
	// of exchanges that had started and were not yet recorded to their end:
	// they will not be.
	OnError func(err error, inFlight int)
	// OnDrop, if set, is called once per exchange, from the goroutine
	// recording it, when the exchange loses data because the queue was
	// full.
	OnDrop func(ex int)
	// Keep, if set, hands over each exchange recorded, whole (see [Keep]).
	Keep *Keep
}

// DefaultMaxQueued is the default bound on encoded lines waiting for the
// disk, in bytes.
const DefaultMaxQueued = 16 << 20

const (
	// slabSize is the capacity of the buffers lines are queued in, one
	// after the other; the writer goroutine writes a slab in one call.
	slabSize = 1 << 20
	// maxFree is how many empty slabs are kept for reuse.
	maxFree = 4
	// flushDelay is how long a compressed capture may hold written lines in
	// the compressor when no exchange ended.
	flushDelay = 200 * time.Millisecond
)

// writeMax bounds the bytes of one write of the capture file. A whole
// batch (megabytes under load) in one call keeps the writer goroutine in
// the kernel long enough for the runtime to hand its P to another thread;
// back from the call, it finds no P free on a busy proxy and waits in the
// global run queue behind the network goroutines while the queue of lines
// fills (a runtime trace showed it runnable for up to 76 ms, p99). Calls
// of 64 KiB mostly return before that: at 500 streams back to back, 0-7%
// of exchanges went unrecorded with the default --buffer (median 3%)
// instead of 5-18% (median 9%) (seam-bench -streams 500 -gap 0 -zst=false,
// nine and six runs, four of each alternating).
const writeMax = 64 << 10

// slab is a buffer of whole encoded lines waiting for the writer goroutine.
// Producers encode a line outside the queue's lock, into a pooled scratch
// buffer, and copy it into the last slab of the queue under the lock (see
// [Writer.appendLine]); the writer goroutine writes the slabs waiting in
// as few calls as writeMax allows.
type slab struct {
	b []byte
	// drop is how many of b's bytes are droppable lines (chunks).
	drop int
	// ends marks the client side's end lines in b, by the offset just past
	// each: once it is written, the exchange is recorded.
	ends []endMark
	// kept marks the lines that completed an exchange kept for
	// WriterOptions.Keep: once written, it is handed over.
	kept []keptMark
}

// endMark is a client end line in a slab.
type endMark struct {
	pos     int
	ex      int
	lossy   bool // the exchange lost data
	skipped bool // all of it
}

// WriterStats counts what a [Writer] has written.
type WriterStats struct {
	// Recorded is the number of exchanges whose last line (the client
	// side's end) was written.
	Recorded int
	// Incomplete is how many of those lost data because the queue was full.
	Incomplete int
	// Skipped is how many of the Incomplete lost all their data: they
	// began while the queue was more than three quarters full.
	Skipped int
	// InFlight is the number of exchanges started with [Writer.Exchange]
	// and not yet recorded to their end.
	InFlight int
}

// Writer appends records to a capture. One goroutine owns the underlying
// io.Writer; any number of producers encode lines in their own goroutines and
// queue them. Every line reaches the io.Writer whole, in one Write call (a
// Write may carry several complete lines), and the lines of one producer keep
// their order. The queue is bounded (see [WriterOptions.MaxQueued]).
type Writer struct {
	w     io.Writer // where batches go: the file, or the compressor
	flush func() error
	end   func() error // finishes the compressed stream
	// batch, when set, writes several slabs in one call: the file, not
	// compressed.
	batch batchWriter
	// release frees the disk space reserved past the end of the file.
	release func() error
	sync    interface{ Sync() error }
	opts    WriterOptions
	max     int

	mu     sync.Mutex
	room   sync.Cond // signalled when queued shrinks
	slabs  []*slab   // the queue; lines are appended to the last slab
	free   []*slab   // empty slabs for reuse
	queued int       // bytes of lines queued or being written
	// dropQueued is the part of queued that droppable lines (chunks)
	// take: what MaxQueued bounds.
	dropQueued int
	closed     bool
	open       map[int]struct{} // exchanges started and not recorded to their end
	// keeping holds the exchanges being gathered for WriterOptions.Keep.
	keeping map[int]*kept
	err     error
	stats   WriterStats
	wake    chan struct{}
	done    chan struct{}
	// wrote counts the bytes that reached the underlying io.Writer
	// (compressed, for a compressed capture).
	wrote atomic.Int64
}

// NewWriter returns a Writer appending to w and starts its writer goroutine.
// Call [Writer.Close] to stop it.
func NewWriter(w io.Writer, opts WriterOptions) *Writer {
	cw := &Writer{
		w:    w,
		opts: opts,
		max:  opts.MaxQueued,
		open: make(map[int]struct{}),
		wake: make(chan struct{}, 1),
		done: make(chan struct{}),
	}
	if f, ok := w.(*os.File); ok {
		if rf := newReservingFile(f); rf != nil {
			cw.w, cw.batch, cw.release = rf, rf, rf.release
		}
	}
	if cw.max <= 0 {
		cw.max = DefaultMaxQueued
	}
	if k := opts.Keep; k != nil {
		own := *k
		if own.Held == nil {
			own.Held = new(atomic.Int64)
		}
		cw.opts.Keep = &own
		cw.keeping = make(map[int]*kept)
	}
	cw.room.L = &cw.mu
	if s, ok := w.(interface{ Sync() error }); ok && opts.Sync {
		cw.sync = s
	}
	if opts.Compress {
		// The compressor writes a block at a time; the buffer makes that
		// one system call per flush instead of one per block.
		bw := bufio.NewWriterSize(countingWriter{cw.w, &cw.wrote}, compressedBuffer)
		zw := newCompressor(bw)
		cw.w, cw.batch = zw, nil
		cw.flush = func() error {
			if err := zw.Flush(); err != nil {
				return err
			}
			return bw.Flush()
		}
		cw.end = func() error {
			if err := zw.Close(); err != nil {
				return err
			}
			return bw.Flush()
		}
	}
	go cw.run()
	return cw
}

// compressedBuffer is the size of the buffer between the compressor and
// the file: a write of the compressed stream is at most writeMax.
const compressedBuffer = writeMax

// batchWriter writes several buffers, in order, in as few calls to the
// system as it can, and returns how many bytes it wrote.
type batchWriter interface {
	writeBatch(bufs [][]byte) (int64, error)
}

// Header encodes h and queues it for writing.
func (w *Writer) Header(h Header) { w.enqueue(func(b []byte) []byte { return AppendHeader(b, h) }) }

// Note encodes n and queues it for writing.
func (w *Writer) Note(n Note) { w.enqueue(func(b []byte) []byte { return AppendNote(b, n) }) }

// enqueue queues one line, waiting for room when the queue is full.
func (w *Writer) enqueue(appendLine func([]byte) []byte) {
	w.mu.Lock()
	for !w.closed && w.queued > 0 && w.queued >= w.max {
		w.room.Wait()
	}
	w.mu.Unlock()
	w.appendLine(appendLine, false, lineMeta{})
}

// lineMeta says what the writer needs to know of a line besides its bytes.
type lineMeta struct {
	ex int
	// kept, when set, is the kept exchange the line completes: it is
	// handed over once the line is written.
	kept *kept
	// end marks the client side's end line; lossy says its exchange lost
	// data, skipped that it lost all of it.
	end, lossy, skipped bool
}

// appendLine encodes one line with appendLine, queues it and reports
// whether it did. A droppable line is not queued when it would take the
// droppable lines queued past the bound; other lines are always queued, and
// do not count against it: they are few (a request, a response, an end, a
// note per exchange) and the request bodies they hold are bounded on their
// own (package record's budget for request bodies in flight). After Close nothing
// is queued.
func (w *Writer) appendLine(appendLine func([]byte) []byte, droppable bool, m lineMeta) bool {
	// Encode outside the lock, into a scratch buffer handed back at once
	// (so the pool holds about one per CPU): the lock is held for a copy.
	bp := scratch.Get().(*[]byte)
	line := appendLine((*bp)[:0])
	defer func() {
		if cap(line) <= maxScratch {
			*bp = line[:0]
			scratch.Put(bp)
		}
	}()
	var s, fresh *slab
	w.mu.Lock()
	for {
		if w.closed || droppable && w.dropQueued+len(line) > w.max {
			w.mu.Unlock()
			return false
		}
		if s = w.tail(len(line), fresh); s != nil {
			break
		}
		// A new slab is a megabyte to clear: not while the producers and
		// the writer goroutine wait for the lock.
		w.mu.Unlock()
		fresh = &slab{b: make([]byte, 0, max(slabSize, len(line)))}
		w.mu.Lock()
	}
	s.b = append(s.b, line...)
	w.queued += len(line)
	if droppable {
		w.dropQueued += len(line)
		s.drop += len(line)
	}
	if m.end {
		s.ends = append(s.ends, endMark{pos: len(s.b), ex: m.ex, lossy: m.lossy, skipped: m.skipped})
	}
	if m.kept != nil {
		s.kept = append(s.kept, keptMark{pos: len(s.b), k: m.kept})
	}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	return true
}

// behind reports the bytes of chunk lines queued and whether they are more
// than three quarters of what the queue holds: an exchange whose data
// begins then is not recorded (see [ExchangeWriter]).
func (w *Writer) behind() (int, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dropQueued, w.dropQueued > w.max/4*3
}

// scratch pools the buffers lines are encoded into before they are copied
// into a slab; maxScratch is the largest kept.
var scratch = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

const maxScratch = 64 << 10

// tail returns the slab to append a line of size bytes to: the last one
// queued while it has room, else a free one, else fresh (made by the
// caller outside the lock), which is kept for reuse when another slab
// serves. It returns nil when the line needs a new slab and fresh is nil.
// Called with w.mu held.
func (w *Writer) tail(size int, fresh *slab) *slab {
	if k := len(w.slabs); k > 0 {
		if s := w.slabs[k-1]; cap(s.b)-len(s.b) >= size {
			w.recycle(fresh)
			return s
		}
	}
	s := fresh
	if k := len(w.free); k > 0 && size <= slabSize {
		s, w.free = w.free[k-1], w.free[:k-1]
		w.recycle(fresh)
	} else if s == nil {
		return nil
	}
	w.slabs = append(w.slabs, s)
	return s
}

// recycle keeps an empty slab (nil: none) for reuse. Called with w.mu
// held.
func (w *Writer) recycle(s *slab) {
	if s != nil && len(w.free) < maxFree && cap(s.b) <= 2*slabSize {
		clear(s.kept)
		s.b, s.ends, s.kept, s.drop = s.b[:0], s.ends[:0], s.kept[:0], 0
		w.free = append(w.free, s)
	}
}

// Close writes every queued line, stops the writer goroutine, ends the
// compressed stream if any and returns the first write error, if any.
// Records sent after Close are dropped. Close does not close the underlying
// io.Writer.
func (w *Writer) Close() error {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		w.room.Broadcast()
	}
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	<-w.done
	return w.Err()
}

// Written returns how many bytes have reached the underlying io.Writer so
// far: the file's size, for a capture written to a new file (compressed
// bytes for a compressed capture, which reach it when the compressor
// flushes: at the latest a short moment after the last line).
func (w *Writer) Written() int64 { return w.wrote.Load() }

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// Err returns the first write error so far, or nil.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Stats returns what has been written so far.
func (w *Writer) Stats() WriterStats {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.stats
	s.InFlight = len(w.open)
	return s
}
