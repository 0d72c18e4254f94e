package bench

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// BenchmarkHeldStreams holds thousands of streams open at once, each paced
// like a model emitting tokens (60 content events, one every 100 ms), and
// checks every byte of every one. One op is one batch. path=seam-record runs
// the real seam binary as a separate process (the file descriptors of 5,000
// streams on both of its sides, plus the client's and the upstream's, do not
// fit one process under a 20,000 limit) writing a plain capture,
// path=seam-record-zst a compressed one; path=direct is the same batch
// without it. Every capture is read back: every exchange whole, every hash
// verified. It reports the peak number of streams open at the same
// moment, event latency p50/p99 under that load, and the proxy's peak RSS.
//
//	go test ./bench -run XXX -bench HeldStreams -benchtime 1x
func BenchmarkHeldStreams(b *testing.B) {
	if testing.Short() {
		b.Skip("holds thousands of connections")
	}
	for _, n := range []int{1000, 5000} {
		for _, path := range []string{"direct", "seam-record", "seam-record-zst"} {
			b.Run(fmt.Sprintf("streams=%d/path=%s", n, path), func(b *testing.B) {
				heldStreams(b, n, path)
			})
		}
	}
}

func heldStreams(b *testing.B, n int, path string) {
	clock := NewClock()
	up, err := NewUpstream(clock)
	if err != nil {
		b.Fatal(err)
	}
	defer up.Close()
	url := up.URL()
	var seam *SeamRecord
	var sampler *Sampler
	if path != "direct" {
		capture := "held.ndjson"
		if path == "seam-record-zst" {
			capture += ".zst"
		}
		seam = startSeamRecord(b, url, capture)
		url = seam.URL
		sampler = NewSampler(seam.Pid(), 100*time.Millisecond)
	}
	tr := NewTransport()
	tr.MaxIdleConnsPerHost = n
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	s := Stream{Events: 60, Interval: 100 * time.Millisecond}

	var lat []int64
	var spans [][2]int64 // first event, end of stream
	b.ResetTimer()
	for range b.N {
		var wg sync.WaitGroup
		var mu sync.Mutex
		var errs []error
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				c := &Client{HTTP: hc, Clock: clock, Verify: true}
				<-start
				res, err := c.Stream(context.Background(), url, s)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, fmt.Errorf("stream %d: %w", i, err))
					return
				}
				lat = append(lat, c.Latencies...)
				spans = append(spans, [2]int64{res.First, res.Done})
			})
		}
		close(start)
		wg.Wait()
		if len(errs) > 0 {
			b.Fatalf("%d of %d streams failed; first: %v", len(errs), n, errs[0])
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(peakOverlap(spans)), "peak-open")
	reportLatency(b, "chunk-", lat)
	if seam != nil {
		samples, err := sampler.Stop()
		if err == nil {
			b.ReportMetric(float64(Summarize(samples).PeakRSS)/(1<<20), "proxy-peak-MiB")
		}
		stopSeam(b, seam, b.N*n)
	}
}

// peakOverlap returns the largest number of [start, end] spans that hold a
// common moment.
func peakOverlap(spans [][2]int64) int {
	type edge struct {
		t     int64
		delta int
	}
	edges := make([]edge, 0, 2*len(spans))
	for _, s := range spans {
		edges = append(edges, edge{s[0], 1}, edge{s[1], -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if a.t != b.t {
			return int(a.t - b.t)
		}
		return a.delta - b.delta // ends before starts at the same moment
	})
	open, peak := 0, 0
	for _, e := range edges {
		open += e.delta
		peak = max(peak, open)
	}
	return peak
}

// startSeamRecord builds the seam binary and runs "seam record" in front of
// upstream, writing a capture in a temporary directory.
func startSeamRecord(b *testing.B, upstream, capture string) *SeamRecord {
	b.Helper()
	dir := b.TempDir()
	bin, err := BuildSeam(dir)
	if err != nil {
		b.Fatal(err)
	}
	p, err := StartSeamRecord(bin, upstream, filepath.Join(dir, capture))
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// stopSeam interrupts seam record and checks that its capture holds want
// complete exchanges with no byte lost between the two sides.
func stopSeam(b *testing.B, p *SeamRecord, want int) {
	b.Helper()
	if err := p.Stop(); err != nil {
		b.Fatal(err)
	}
	c, err := CheckCapture(p.Capture)
	if err != nil {
		b.Fatal(err)
	}
	if c.Exchanges != want || c.Incomplete > 0 {
		b.Fatalf("capture holds %d exchanges (%d of them incomplete), want %d whole", c.Exchanges, c.Incomplete, want)
	}
}
