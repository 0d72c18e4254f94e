package tape

import (
	"fmt"
	"io"
	"sync"
)

// WriterOptions configures a [Writer].
type WriterOptions struct {
	// Sync makes the writer call Sync after each batch of lines when the
	// underlying writer has a Sync method (an *os.File does): slower, but a
	// line is on disk before the next batch is written.
	Sync bool
}

const (
	// queueLen is how many encoded lines may wait for the writer goroutine
	// before producers block.
	queueLen = 4096
	// maxBatch is the size past which the writer goroutine stops gathering
	// lines into one Write.
	maxBatch = 256 << 10
	// maxPooled is the largest line buffer returned to the pool.
	maxPooled = 64 << 10
)

// Writer appends records to a capture. One goroutine owns the underlying
// io.Writer; any number of producers encode lines in their own goroutines and
// hand them over through a channel. Every line reaches the io.Writer whole,
// in one Write call (a Write may carry several complete lines), and the lines
// of one producer keep their order.
type Writer struct {
	w    io.Writer
	sync interface{ Sync() error }

	mu     sync.RWMutex // held for reading while sending, for writing by Close
	closed bool
	lines  chan *[]byte
	done   chan struct{}

	pool sync.Pool // of *[]byte line buffers

	errMu sync.Mutex
	err   error
}

// NewWriter returns a Writer appending to w and starts its writer goroutine.
// Call [Writer.Close] to stop it.
func NewWriter(w io.Writer, opts WriterOptions) *Writer {
	cw := &Writer{
		w:     w,
		lines: make(chan *[]byte, queueLen),
		done:  make(chan struct{}),
	}
	if s, ok := w.(interface{ Sync() error }); ok && opts.Sync {
		cw.sync = s
	}
	cw.pool.New = func() any {
		b := make([]byte, 0, 512)
		return &b
	}
	go cw.run()
	return cw
}

// Header encodes h and queues it for writing.
func (w *Writer) Header(h Header) { w.enqueue(func(b []byte) []byte { return AppendHeader(b, h) }) }

// Request encodes r and queues it for writing.
func (w *Writer) Request(r Request) { w.enqueue(func(b []byte) []byte { return AppendRequest(b, r) }) }

// Response encodes r and queues it for writing.
func (w *Writer) Response(r Response) {
	w.enqueue(func(b []byte) []byte { return AppendResponse(b, r) })
}

// Chunk encodes c, copying its data, and queues it for writing; the caller may
// reuse c.Data as soon as Chunk returns.
func (w *Writer) Chunk(c Chunk) {
	bp := w.pool.Get().(*[]byte)
	*bp = AppendChunk((*bp)[:0], c)
	w.send(bp)
}

// End encodes e and queues it for writing.
func (w *Writer) End(e End) { w.enqueue(func(b []byte) []byte { return AppendEnd(b, e) }) }

// Note encodes n and queues it for writing.
func (w *Writer) Note(n Note) { w.enqueue(func(b []byte) []byte { return AppendNote(b, n) }) }

// enqueue encodes one line into a pooled buffer and sends it.
func (w *Writer) enqueue(appendLine func([]byte) []byte) {
	bp := w.pool.Get().(*[]byte)
	*bp = appendLine((*bp)[:0])
	w.send(bp)
}

// send hands a line to the writer goroutine, or drops it after Close.
func (w *Writer) send(bp *[]byte) {
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		w.put(bp)
		return
	}
	w.lines <- bp
	w.mu.RUnlock()
}

// put returns a line buffer to the pool unless it grew too large.
func (w *Writer) put(bp *[]byte) {
	if cap(*bp) <= maxPooled {
		*bp = (*bp)[:0]
		w.pool.Put(bp)
	}
}

// Close writes every queued line, stops the writer goroutine and returns the
// first write error, if any. Records sent after Close are dropped. Close does
// not close the underlying io.Writer.
func (w *Writer) Close() error {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.lines)
	}
	w.mu.Unlock()
	<-w.done
	return w.Err()
}

// Err returns the first write error so far, or nil.
func (w *Writer) Err() error {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	return w.err
}

// setErr records the first write error.
func (w *Writer) setErr(err error) {
	w.errMu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.errMu.Unlock()
}

// run is the writer goroutine: it gathers the lines that are waiting into one
// batch, writes it in one call and repeats until the channel is closed.
func (w *Writer) run() {
	defer close(w.done)
	var batch []byte
	failed := false
	for bp := range w.lines {
		out := *bp
		if len(w.lines) > 0 {
			batch = append(batch[:0], out...)
			w.put(bp)
			bp = nil
		gather:
			for len(batch) < maxBatch {
				select {
				case next, ok := <-w.lines:
					if !ok {
						break gather
					}
					batch = append(batch, *next...)
					w.put(next)
				default:
					break gather
				}
			}
			out = batch
		}
		if !failed {
			if err := w.write(out); err != nil {
				w.setErr(err)
				failed = true
			}
		}
		if bp != nil {
			w.put(bp)
		}
		if cap(batch) > 4*maxBatch {
			batch = nil
		}
	}
}

// write writes one batch of complete lines and syncs it when asked to.
func (w *Writer) write(b []byte) error {
	if _, err := w.w.Write(b); err != nil {
		return fmt.Errorf("write capture: %w", err)
	}
	if w.sync != nil {
		if err := w.sync.Sync(); err != nil {
			return fmt.Errorf("sync capture: %w", err)
		}
	}
	return nil
}
