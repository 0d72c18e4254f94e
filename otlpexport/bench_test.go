package otlpexport

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/seam-dev/seam/bench"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/tape"
)

// BenchmarkExchange measures what exporting costs per exchange beside a
// recording, now that the recorder hands each exchange over (Live):
// inspecting it and building its span, nothing read back. The exchanges
// are those of the capture SEAM_BENCH_CAPTURE names (seam-bench -keep
// leaves some; the first 2000), read before the timer starts; skipped
// without it. cpu-ns/exchange is the process's CPU time per exchange.
func BenchmarkExchange(b *testing.B) {
	path := os.Getenv("SEAM_BENCH_CAPTURE")
	if path == "" {
		b.Skip("SEAM_BENCH_CAPTURE names no capture")
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	r := tape.NewExchangeReader(f, path)
	h, err := r.Header()
	if err != nil {
		b.Fatal(err)
	}
	var xs []*tape.Exchange
	for len(xs) < 2000 {
		x, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
		xs = append(xs, x)
	}
	f.Close()
	b.ResetTimer()
	cpu := bench.ProcessCPU()
	for b.Loop() {
		in := inspect.NewInspector(path, *h, inspect.Options{NoDiffs: true})
		for _, x := range xs {
			Describe(Exchange{Header: h, X: x, Report: in.Exchange(x)}, false, time.Now())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(xs)), "ns/exchange")
	if cpu > 0 {
		// CPU time, garbage collection included: what a busy machine does
		// not inflate.
		b.ReportMetric(float64((bench.ProcessCPU()-cpu).Nanoseconds())/float64(b.N*len(xs)), "cpu-ns/exchange")
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
