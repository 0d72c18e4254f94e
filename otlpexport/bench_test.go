package otlpexport

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/tape"
)

// BenchmarkFollow measures what exporting costs per exchange beside a
// recording: reading the capture back, inspecting each exchange as
// Follow does and building its span. SEAM_BENCH_CAPTURE names the capture
// (seam-bench -keep leaves some); skipped without it.
func BenchmarkFollow(b *testing.B) {
	path := os.Getenv("SEAM_BENCH_CAPTURE")
	if path == "" {
		b.Skip("SEAM_BENCH_CAPTURE names no capture")
	}
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		r := tape.NewExchangeReader(f, path)
		r.Eager()
		h, err := r.Header()
		if err != nil {
			b.Fatal(err)
		}
		in := inspect.NewInspector(path, *h, inspectOptions(0))
		in.Workers = 1
		n := 0
		err = in.Run(context.Background(), r.Next, func(*tape.Exchange) inspect.Pick { return inspect.PickReport },
			func(x *tape.Exchange, rep *inspect.ExchangeReport) error {
				Describe(Exchange{Header: h, X: x, Report: rep}, false, time.Now())
				n++
				return nil
			})
		f.Close()
		if err != nil && !errors.Is(err, io.EOF) {
			b.Fatal(err)
		}
		b.ReportMetric(float64(n), "exchanges/op")
	}
}

// BenchmarkQueueMemory measures the export queue's memory bound: a
// Collector that accepts no connection, the queue filled to its bound with
// the spans of a fixture exchange with findings (incident-holdback-off: a
// Chat stream with six findings), then as many again, which are dropped.
// It reports the heap the full queue holds, per span and in all.
func BenchmarkQueueMemory(b *testing.B) {
	c, err := tape.ReadFile("../fixtures/incident-holdback-off.ndjson")
	if err != nil {
		b.Fatal(err)
	}
	rep := inspect.Inspect(c, inspect.Options{NoDiffs: true})
	in := Exchange{Header: &c.Header, CaptureURI: FileURI("../fixtures/incident-holdback-off.ndjson"), X: c.Exchanges[0], Report: rep.Exchanges[0]}
	for b.Loop() {
		x, err := New(context.Background(), Config{TracesURL: "http://127.0.0.1:1/v1/traces", Protocol: ProtocolHTTP, Retry: time.Hour, Timeout: time.Second})
		if err != nil {
			b.Fatal(err)
		}
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		for range 2 * DefaultQueue {
			x.Export(in)
		}
		runtime.GC()
		runtime.ReadMemStats(&m1)
		held := float64(m1.HeapAlloc) - float64(m0.HeapAlloc)
		b.ReportMetric(held/DefaultQueue, "B/queued-span")
		b.ReportMetric(held/(1<<20), "MiB/full-queue")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		x.Close(ctx)
		cancel()
		if st := x.Stats(); st.Sent != 0 || st.Dropped != 2*DefaultQueue {
			b.Fatalf("sent %d dropped %d", st.Sent, st.Dropped)
		}
	}
}
