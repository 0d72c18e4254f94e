package otlpexport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// queue is the span processor between the spans built and the OTLP
// exporter: a bounded channel, one goroutine sending batches, a failed
// batch retried with exponential backoff, and exact counts of the spans
// sent and dropped. Ending a span never blocks: a span that finds the
// queue full is dropped at once.
type queue struct {
	exp     sdktrace.SpanExporter
	in      chan sdktrace.ReadOnlySpan
	batch   int
	retry   time.Duration
	timeout time.Duration
	log     io.Writer
	waitOn  atomic.Bool

	// flush asks the sender to send what it holds and answer on the
	// channel it passes.
	flush chan chan struct{}
	// stop ends the sender once the queue is empty; done is closed once
	// it has returned. base is the context of every send, cancelled when
	// Shutdown's context is done, to end a send in progress and its
	// retries.
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
	base     context.Context
	cancel   context.CancelFunc

	// bytes estimates the memory the spans queued or being sent hold;
	// maxBytes bounds it.
	bytes, maxBytes int64
	held            atomic.Int64

	sent, dropped atomic.Int64
	closed        atomic.Bool
	stopping      atomic.Bool
	warned        atomic.Bool
	mu            sync.Mutex
	lastErr       error
}

// backoff bounds: the first wait after a failure and the longest.
const (
	backoffFirst = 250 * time.Millisecond
	backoffMax   = 4 * time.Second
	// linger is how long the sender waits for a batch to fill.
	linger = time.Second
	// stopRetry bounds the retries of the batches sent as the Exporter
	// closes.
	stopRetry = 2 * time.Second
)

func newQueue(exp sdktrace.SpanExporter, cfg Config) *queue {
	q := &queue{
		exp: exp, in: make(chan sdktrace.ReadOnlySpan, cfg.Queue), batch: cfg.Batch,
		retry: cfg.Retry, timeout: cfg.Timeout, log: cfg.Log,
		flush: make(chan chan struct{}), stop: make(chan struct{}), done: make(chan struct{}),
	}
	q.base, q.cancel = context.WithCancel(context.Background())
	q.maxBytes = cfg.QueueBytes
	if q.maxBytes <= 0 {
		q.maxBytes = DefaultQueueBytes
	}
	q.waitOn.Store(cfg.Wait)
	go q.run()
	return q
}

// OnStart does nothing: spans are only sent once they end.
func (q *queue) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd queues s, or drops it when the queue is full (unless it waits
// for room) or closed.
func (q *queue) OnEnd(s sdktrace.ReadOnlySpan) {
	if !s.SpanContext().IsSampled() {
		return
	}
	if q.closed.Load() {
		q.drop(1, fmt.Errorf("the exporter was closed"))
		return
	}
	size := spanSize(s)
	if q.waitOn.Load() {
		for q.held.Load()+size > q.maxBytes && q.held.Load() > 0 {
			select {
			case <-q.done:
				q.drop(1, fmt.Errorf("the exporter was closed"))
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
		q.held.Add(size)
		select {
		case q.in <- s:
		case <-q.done:
			q.held.Add(-size)
			q.drop(1, fmt.Errorf("the exporter was closed"))
		}
		return
	}
	if q.held.Add(size) > q.maxBytes {
		q.held.Add(-size)
		q.drop(1, fmt.Errorf("the queue was full (%d MiB)", q.maxBytes>>20))
		return
	}
	select {
	case q.in <- s:
	default:
		q.held.Add(-size)
		q.drop(1, fmt.Errorf("the queue of %d spans was full", cap(q.in)))
	}
}

// spanSize estimates the memory a span holds: its strings and a fixed
// cost per attribute, event and span.
func spanSize(s sdktrace.ReadOnlySpan) int64 {
	n := int64(512 + len(s.Name()))
	attrs := func(kvs []attribute.KeyValue) {
		for _, kv := range kvs {
			n += 48 + int64(len(kv.Key))
			switch kv.Value.Type() {
			case attribute.STRING:
				n += int64(len(kv.Value.AsString()))
			case attribute.STRINGSLICE:
				for _, v := range kv.Value.AsStringSlice() {
					n += 16 + int64(len(v))
				}
			}
		}
	}
	attrs(s.Attributes())
	for _, e := range s.Events() {
		n += 64 + int64(len(e.Name))
		attrs(e.Attributes)
	}
	return n
}

// drop counts n spans dropped, saying so once.
func (q *queue) drop(n int, why error) {
	q.dropped.Add(int64(n))
	q.mu.Lock()
	q.lastErr = why
	q.mu.Unlock()
	if q.log != nil && q.warned.CompareAndSwap(false, true) {
		fmt.Fprintf(q.log, "otlp: dropping spans: %v (the capture keeps every exchange; the summary counts the spans dropped)\n", why)
	}
}

// ForceFlush sends every span queued so far.
func (q *queue) ForceFlush(ctx context.Context) error {
	ack := make(chan struct{})
	select {
	case q.flush <- ack:
	case <-q.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-ack:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown stops taking spans, sends those queued until ctx is done
// (what is left then is dropped and counted), and shuts the exporter down.
func (q *queue) Shutdown(ctx context.Context) error {
	q.stopOnce.Do(func() {
		q.closed.Store(true)
		close(q.stop)
	})
	select {
	case <-q.done:
	case <-ctx.Done():
		q.cancel() // ends the send in progress: its batch and the rest are dropped
		<-q.done
	}
	q.cancel()
	return q.exp.Shutdown(ctx)
}

// run is the sender.
func (q *queue) run() {
	defer close(q.done)
	buf := make([]sdktrace.ReadOnlySpan, 0, q.batch)
	tick := time.NewTimer(linger)
	defer tick.Stop()
	send := func(ctx context.Context) {
		if len(buf) > 0 {
			q.send(ctx, buf)
			for _, s := range buf {
				q.held.Add(-spanSize(s))
			}
			clear(buf)
			buf = buf[:0]
		}
	}
	for {
		select {
		case s := <-q.in:
			buf = append(buf, s)
			if len(buf) >= q.batch {
				send(q.base)
			}
		case <-tick.C:
			send(q.base)
			tick.Reset(linger)
		case ack := <-q.flush:
			q.drain(q.base, &buf, send)
			close(ack)
		case <-q.stop:
			q.stopping.Store(true)
			q.drain(q.base, &buf, send)
			if n := len(q.in) + len(buf); n > 0 {
				q.drop(n, errStopped)
			}
			q.held.Store(0)
			return
		}
	}
}

// drain sends what the queue holds now, batch by batch, until ctx is done.
func (q *queue) drain(ctx context.Context, buf *[]sdktrace.ReadOnlySpan, send func(context.Context)) {
	for ctx.Err() == nil {
		select {
		case s := <-q.in:
			*buf = append(*buf, s)
			if len(*buf) >= q.batch {
				send(ctx)
			}
			continue
		default:
		}
		break
	}
	if ctx.Err() == nil {
		send(ctx)
	}
}

// send exports one batch, retrying with exponential backoff for q.retry
// (or until ctx is done); the batch is dropped if it still fails.
func (q *queue) send(ctx context.Context, batch []sdktrace.ReadOnlySpan) {
	retry := q.retry
	if q.stopping.Load() {
		retry = min(retry, stopRetry) // seam is exiting: do not hold it up long
	}
	deadline := time.Now().Add(retry)
	wait := backoffFirst
	for {
		rctx, cancel := context.WithTimeout(ctx, q.timeout)
		err := q.exp.ExportSpans(rctx, batch)
		cancel()
		if err == nil {
			q.sent.Add(int64(len(batch)))
			return
		}
		if ctx.Err() != nil {
			q.drop(len(batch), fmt.Errorf("%w (%v)", errStopped, err))
			return
		}
		if time.Now().Add(wait).After(deadline) {
			q.drop(len(batch), err)
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
		wait = min(2*wait, backoffMax)
	}
}

// errStopped is why the spans still queued when an Exporter closes are
// dropped.
var errStopped = errors.New("seam stopped before they could be sent")

// Stats counts the spans an Exporter handled.
type Stats struct {
	// Sent is how many spans the endpoint accepted, Dropped how many were
	// not sent (a full queue, or a batch that failed after its retries).
	Sent, Dropped int64
	// LastError is why the last span was dropped; nil when none was.
	LastError error
}

func (q *queue) stats() Stats {
	q.mu.Lock()
	defer q.mu.Unlock()
	return Stats{Sent: q.sent.Load(), Dropped: q.dropped.Load(), LastError: q.lastErr}
}
