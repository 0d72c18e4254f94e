package otlpexport

import (
	"context"
	"errors"
	"io"
	"os"
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
