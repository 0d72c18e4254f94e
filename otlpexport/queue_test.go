package otlpexport

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	oteltrace "go.opentelemetry.io/otel/trace"
)

// flakyExporter fails while down is set and counts the spans it took.
type flakyExporter struct {
	mu   sync.Mutex
	down bool
	got  int
}

func (f *flakyExporter) ExportSpans(ctx context.Context, spans []trace.ReadOnlySpan) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return errors.New("connection refused")
	}
	f.got += len(spans)
	return nil
}

func (f *flakyExporter) Shutdown(context.Context) error { return nil }

func (f *flakyExporter) set(down bool) {
	f.mu.Lock()
	f.down = down
	f.mu.Unlock()
}

// sampled returns n sampled spans.
func sampled(n int) []trace.ReadOnlySpan {
	stubs := make(tracetest.SpanStubs, n)
	for i := range stubs {
		stubs[i].Name = "s"
		stubs[i].SpanContext = oteltrace.NewSpanContext(oteltrace.SpanContextConfig{
			TraceID: oteltrace.TraceID{1}, SpanID: oteltrace.SpanID{byte(i + 1)}, TraceFlags: oteltrace.FlagsSampled,
		})
	}
	return stubs.Snapshots()
}

// TestQueueCountsDrops: spans ended while the exporter fails are dropped
// once the queue is full or their batch's retries run out, each counted;
// sent + dropped is every span, and export resumes when it works again.
func TestQueueCountsDrops(t *testing.T) {
	exp := &flakyExporter{down: true}
	q := newQueue(exp, Config{Queue: 10, Batch: 5, Retry: 300 * time.Millisecond, Timeout: time.Second})
	for _, s := range sampled(100) {
		q.OnEnd(s)
	}
	time.Sleep(time.Second) // the batch in flight gives up
	exp.set(false)
	for _, s := range sampled(7) {
		q.OnEnd(s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := q.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	st := q.stats()
	if st.Sent+st.Dropped != 107 || st.Sent != int64(exp.got) || st.Dropped < 90 || st.LastError == nil {
		t.Fatalf("sent %d dropped %d (exporter got %d), want 107 in all, at least 90 dropped", st.Sent, st.Dropped, exp.got)
	}
	if exp.got < 7 {
		t.Errorf("only %d spans sent after the exporter came back", exp.got)
	}
}

// TestQueueWaits: a waiting queue drops nothing however many spans come.
func TestQueueWaits(t *testing.T) {
	exp := &flakyExporter{}
	q := newQueue(exp, Config{Queue: 4, Batch: 2, Retry: time.Second, Timeout: time.Second, Wait: true})
	for _, s := range sampled(1000) {
		q.OnEnd(s)
	}
	if err := q.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := q.stats(); st.Sent != 1000 || st.Dropped != 0 {
		t.Fatalf("sent %d dropped %d, want 1000 and 0", st.Sent, st.Dropped)
	}
}

// TestQueueBytesBound: spans too big for the queue's memory bound are
// dropped and counted, whatever room the queue has in spans.
func TestQueueBytesBound(t *testing.T) {
	exp := &flakyExporter{down: true}
	q := newQueue(exp, Config{Queue: 1000, Batch: 1000, Retry: time.Hour, Timeout: time.Second, QueueBytes: 8 << 20})
	big := strings.Repeat("x", 1<<20)
	stubs := make(tracetest.SpanStubs, 100)
	for i := range stubs {
		stubs[i].SpanContext = oteltrace.NewSpanContext(oteltrace.SpanContextConfig{TraceID: oteltrace.TraceID{1}, SpanID: oteltrace.SpanID{byte(i + 1)}, TraceFlags: oteltrace.FlagsSampled})
		stubs[i].Attributes = []attribute.KeyValue{attribute.String("gen_ai.input.messages", big)}
	}
	for _, s := range stubs.Snapshots() {
		q.OnEnd(s)
	}
	if st := q.stats(); st.Dropped < 92 || q.held.Load() > 8<<20 {
		t.Fatalf("%d of 100 spans of 1 MiB dropped, %d bytes held; want at most 8 MiB held", st.Dropped, q.held.Load())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	q.Shutdown(ctx)
	if st := q.stats(); st.Sent+st.Dropped != 100 || st.Sent != 0 {
		t.Fatalf("sent %d dropped %d, want 0 and 100", st.Sent, st.Dropped)
	}
}
