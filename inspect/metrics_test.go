package inspect

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/tape"
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
	if got := m.Line(); got != "gaps p50 3ms p99 1.5s max 1.5s · 1 stall over 1s · tokens in 120 out 40 · 26.5 tokens/s" {
		t.Errorf("line %q", got)
	}
}

// TestMetricsUsageFromUpstream: when the client side reports no usage (a
// proxy dropped the usage chunk), the exchange's metrics take the
// upstream's usage with the gaps and tokens/s of the client's chunks; in
// an import, whose times are not measurements, the usage only.
func TestMetricsUsageFromUpstream(t *testing.T) {
	t.Parallel()
	up := strings.TrimSuffix(chatText("Hi"), done) + usageChunk + done
	c := exInput{up: up, client: chatText("H", "i")}.capture()
	x := c.Exchanges[0]
	x.Client.Chunks = chunksOf(tape.Client, x.Client.Body(), 50) // 1 ms apart
	n := len(x.Client.Chunks)
	rep := Inspect(c, Options{}).Exchanges[0]
	m, cl := rep.Metrics, rep.Sides[1].Metrics
	want := 1 / (float64(n-1) * 1e6 / 1e9) // 1 output token over the client's span
	if n < 3 || m.TokensIn != 3 || m.TokensOut != 1 || math.Abs(m.TokensPerS-want) > 1e-9 || m.Gaps != n-1 || m.GapMax != cl.GapMax {
		t.Errorf("metrics %+v (client side %+v, %d chunks), want the upstream's usage at %g tokens/s", m, cl, n, want)
	}
	if cl.TokensOut != 0 || cl.TokensPerS != 0 {
		t.Errorf("client side metrics %+v: it reports no usage", cl)
	}
	c.Header.Imported = &tape.Imported{Format: "test", Timing: tape.TimingNone}
	m = Inspect(c, Options{}).Exchanges[0].Metrics
	if m.TokensIn != 3 || m.TokensOut != 1 || m.TokensPerS != 0 || m.Gaps != 0 {
		t.Errorf("imported: metrics %+v, want the usage and no times", m)
	}
}
