package inspect

import (
	"math"
	"testing"
	"time"
)

// TestMetrics: an exchange's gaps, stalls and tokens/s are those of its
// chunk times and reported usage, on the exchange, on its side, in the
// text report; the stall threshold is Options.Stall.
func TestMetrics(t *testing.T) {
	x := newLoop("chat", "hi").step(1, false, 120, 40)
	// Chunk times 0, 1, 3, 6, 1506, 1510 ms after the first: gaps 1 2 3 1500 4.
	base := x.Upstream.Chunks[0].T
	for i, ms := range []int64{0, 1, 3, 6, 1506, 1510} {
		x.Upstream.Chunks[i].T = base + ms*int64(time.Millisecond)
	}
	x.Upstream.End.T = base + 1510*int64(time.Millisecond)
	rep := Inspect(loopCapture("m.ndjson", x), Options{})
	m := rep.Exchanges[0].Metrics
	ms := int64(time.Millisecond)
	if m == nil || m.Gaps != 5 || m.GapP50 != 3*ms || m.GapP99 != 1500*ms || m.GapMax != 1500*ms || m.Stalls != 1 || m.StallNs != int64(time.Second) {
		t.Fatalf("metrics %+v", m)
	}
	if m.TokensIn != 120 || m.TokensOut != 40 || math.Abs(m.TokensPerS-40/1.51) > 1e-9 {
		t.Errorf("tokens %+v", m)
	}
	if side := rep.Exchanges[0].Sides[0].Metrics; side == nil || *side != *m {
		t.Errorf("side metrics %+v", side)
	}
	rep = Inspect(loopCapture("m.ndjson", x), Options{Stall: 2 * time.Millisecond})
	if m := rep.Exchanges[0].Metrics; m.Stalls != 3 || m.StallNs != 2*ms {
		t.Errorf("--stall 2ms: %+v", m)
	}
	if got := m.Line(); got != "gaps p50 3.0ms p99 1.50s max 1.50s · 1 stall over 1.00s · tokens in 120 out 40 · 26.5 tokens/s" {
		t.Errorf("line %q", got)
	}
}
