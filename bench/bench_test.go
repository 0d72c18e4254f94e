package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seam-dev/seam/internal/dist"
)

// reportLatency reports the p50 and p99 of samples (ns) under prefix.
func reportLatency(b *testing.B, prefix string, samples []int64) {
	b.ReportMetric(float64(dist.Percentile(samples, 50)), prefix+"p50-ns")
	b.ReportMetric(float64(dist.Percentile(samples, 99)), prefix+"p99-ns")
}

// BenchmarkTTFB measures, per one-event stream, the time from sending the
// request to receiving the first event, over kept-alive connections.
func BenchmarkTTFB(b *testing.B) {
	for _, path := range paths() {
		b.Run("path="+path, func(b *testing.B) {
			r := newRig(b)
			c := r.client()
			ctx := context.Background()
			url := r.url(path)
			s := Stream{Events: 1}
			if _, err := c.Stream(ctx, url, s); err != nil { // open the connections
				b.Fatal(err)
			}
			ttfb := make([]int64, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				res, err := c.Stream(ctx, url, s)
				if err != nil {
					b.Fatal(err)
				}
				ttfb = append(ttfb, res.First-res.Sent)
			}
			b.StopTimer()
			reportLatency(b, "", ttfb)
		})
	}
}

// BenchmarkChunkLatency measures, per content event of one long stream, the
// time from the upstream's write to the client's receipt. In lockstep the
// upstream sends each event once the client has the previous one, so every
// event meets an idle pipeline; paced sends one every millisecond.
func BenchmarkChunkLatency(b *testing.B) {
	modes := []struct {
		name     string
		interval time.Duration
		gate     bool
	}{
		{"lockstep", 0, true},
		{"paced-1ms", time.Millisecond, false},
	}
	for _, m := range modes {
		for _, path := range paths() {
			b.Run("mode="+m.name+"/path="+path, func(b *testing.B) {
				r := newRig(b)
				chunkLatency(b, r.client(), r.upstream, r.url(path), m.interval, m.gate)
			})
		}
	}
}

// chunkLatency streams b.N events from up through url, paced by interval
// or in lockstep (gate), and reports each event's send → receive latency.
func chunkLatency(b *testing.B, c *Client, up *Upstream, url string, interval time.Duration, gate bool) {
	ctx := context.Background()
	if _, err := c.Stream(ctx, url, Stream{Events: 1}); err != nil {
		b.Fatal(err)
	}
	s := Stream{Events: b.N, Interval: interval}
	if gate {
		s.Gate = up.NewGate()
		defer s.Gate.Close()
	}
	c.Latencies = make([]int64, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := c.Stream(ctx, url, s); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	reportLatency(b, "", c.Latencies)
}

// BenchmarkStreams50 runs whole 100-event streams, events back to back, 50
// at a time: one op is one stream. It reports streams/s, the p50/p99 of a
// stream's duration and of its events' latency under that load.
func BenchmarkStreams50(b *testing.B) {
	const (
		workers = 50
		events  = 100
	)
	for _, path := range paths() {
		b.Run("path="+path, func(b *testing.B) {
			r := newRig(b)
			streams(b, r.client, r.url(path), workers, events)
		})
	}
}

// streams runs whole streams of events back to back through url, workers
// at a time (one op is one stream), and reports streams/s, the p50/p99 of
// a stream's duration and of its events' latency under that load.
func streams(b *testing.B, newClient func() *Client, url string, workers, events int) {
	ctx := context.Background()
	clients := make([]*Client, workers)
	durations := make([][]int64, workers)
	var wg sync.WaitGroup
	for i := range clients { // open the connections
		clients[i] = newClient()
		wg.Go(func() {
			if _, err := clients[i].Stream(ctx, url, Stream{Events: 1}); err != nil {
				b.Error(err)
			}
			clients[i].Latencies = clients[i].Latencies[:0]
		})
	}
	wg.Wait()
	if b.Failed() {
		return
	}
	var next atomic.Int64
	errs := make(chan error, workers)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i, c := range clients {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				res, err := c.Stream(ctx, url, Stream{Events: events})
				if err != nil {
					errs <- fmt.Errorf("worker %d: %w", i, err)
					return
				}
				durations[i] = append(durations[i], res.Done-res.Sent)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	var all, lat []int64
	for i, c := range clients {
		all = append(all, durations[i]...)
		lat = append(lat, c.Latencies...)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "streams/s")
	reportLatency(b, "stream-", all)
	reportLatency(b, "chunk-", lat)
}
