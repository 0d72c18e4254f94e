package bench

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Load is a closed-loop load: Concurrency clients, each requesting one
// stream after another from one base URL for Duration.
type Load struct {
	Concurrency int
	Duration    time.Duration
	Stream      Stream
	// Events keeps every content event's latency in LoadResult.Latency.
	Events bool
	// Verify checks every event byte for byte against what the upstream
	// sent (Client.Verify): a stream that differs counts as failed.
	Verify bool
}

// LoadResult is what a [Load] measured.
type LoadResult struct {
	// Streams is the number of streams read to their end; Elapsed the time
	// they took, from the first request to the last stream's end.
	Streams int
	Elapsed time.Duration
	// TTFB holds each stream's time to first event, Latency each content
	// event's send → receive time (with Load.Events), in ns.
	TTFB    []int64
	Latency []int64
	// Bytes is the body bytes the clients read.
	Bytes int64
	// Proto is the protocol the clients read their streams over (that of
	// a stream read to its end; "" when none was).
	Proto string
	// Errors counts streams that failed; Err is the first failure.
	Errors int
	Err    error
}

// PerSecond returns the streams read per second.
func (r LoadResult) PerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Streams) / r.Elapsed.Seconds()
}

// Run runs the load against baseURL with clients sharing hc and clock, the
// upstream's clock. Every stream that starts before the deadline is read to
// its end.
func (l Load) Run(ctx context.Context, hc *http.Client, clock Clock, baseURL string) LoadResult {
	var (
		mu  sync.Mutex
		out LoadResult
		wg  sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(l.Duration)
	for range l.Concurrency {
		wg.Go(func() {
			c := &Client{HTTP: hc, Clock: clock, Verify: l.Verify}
			var ttfb []int64
			var bytes int64
			var proto string
			streams, errs := 0, 0
			var first error
			for time.Now().Before(deadline) && ctx.Err() == nil {
				res, err := c.Stream(ctx, baseURL, l.Stream)
				if err != nil {
					errs++
					if first == nil {
						first = err
					}
					continue
				}
				if !l.Events {
					c.Latencies = c.Latencies[:0]
				}
				streams++
				bytes += res.Bytes
				proto = res.Proto
				ttfb = append(ttfb, int64(res.TTFB()))
			}
			mu.Lock()
			defer mu.Unlock()
			out.Streams += streams
			out.Errors += errs
			out.Bytes += bytes
			if proto != "" {
				out.Proto = proto
			}
			out.TTFB = append(out.TTFB, ttfb...)
			out.Latency = append(out.Latency, c.Latencies...)
			if out.Err == nil && first != nil {
				out.Err = fmt.Errorf("stream failed: %w", first)
			}
		})
	}
	wg.Wait()
	out.Elapsed = time.Since(start)
	return out
}
