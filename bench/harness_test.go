package bench

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/seam-dev/seam/tape"
)

// TestHarness sends a few streams through each path with every event checked
// byte for byte, and checks that the proxy's capture holds exactly what the
// client read, on both sides, so the benchmarks measure what they claim.
func TestHarness(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	tests := []struct {
		name   string
		stream func() Stream
	}{
		{"back to back", func() Stream { return Stream{Events: 40} }},
		{"paced", func() Stream { return Stream{Events: 3, Interval: time.Millisecond} }},
		{"lockstep", func() Stream { return Stream{Events: 20, Gate: r.upstream.NewGate()} }},
		{"no events", func() Stream { return Stream{} }},
	}
	var proxied [][]byte // bodies read through the proxy, in request order
	for _, path := range paths() {
		for _, tc := range tests {
			s := tc.stream()
			if s.Gate != nil {
				defer s.Gate.Close()
			}
			var body bytes.Buffer
			c := r.client()
			c.Verify, c.Copy = true, &body
			res, err := c.Stream(context.Background(), r.url(path), s)
			if err != nil {
				t.Fatalf("%s, %s: %v", path, tc.name, err)
			}
			if res.Events != s.Events || len(c.Latencies) != s.Events {
				t.Errorf("%s, %s: %d events, %d latencies, want %d", path, tc.name, res.Events, len(c.Latencies), s.Events)
			}
			for i, l := range c.Latencies {
				if l <= 0 {
					t.Errorf("%s, %s: event %d latency %d ns, want > 0", path, tc.name, i, l)
				}
			}
			if s.Events > 0 && (res.First < res.Sent || res.Done < res.First) {
				t.Errorf("%s, %s: times sent %d, first %d, done %d out of order", path, tc.name, res.Sent, res.First, res.Done)
			}
			if res.Bytes != int64(body.Len()) {
				t.Errorf("%s, %s: counted %d bytes, read %d", path, tc.name, res.Bytes, body.Len())
			}
			if path == "proxy" {
				proxied = append(proxied, body.Bytes())
			}
		}
	}
	r.http.CloseIdleConnections()
	if err := r.proxy.Close(); err != nil {
		t.Fatal(err)
	}
	capt, err := tape.ReadFile(r.capture)
	if err != nil {
		t.Fatal(err)
	}
	if len(capt.Warnings) > 0 {
		t.Errorf("capture warnings: %v", capt.Warnings)
	}
	if len(capt.Exchanges) != len(proxied) {
		t.Fatalf("capture has %d exchanges, want %d", len(capt.Exchanges), len(proxied))
	}
	for i, x := range capt.Exchanges {
		for _, side := range []tape.Side{tape.Upstream, tape.Client} {
			d := x.Side(side)
			if got := d.Body(); !bytes.Equal(got, proxied[i]) {
				t.Errorf("exchange %d: recorded %s body (%d bytes) differs from what the client read (%d bytes)", x.Ex, side, len(got), len(proxied[i]))
			}
			if d.End == nil || d.End.Outcome != tape.Complete {
				t.Errorf("exchange %d: %s end %+v, want outcome complete", x.Ex, side, d.End)
			}
		}
	}
}
