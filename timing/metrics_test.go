package timing

import (
	"testing"
	"time"

	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
)

// TestOf: gaps by nearest rank, stalls past the threshold, a time going
// back counted as no gap, and output tokens over the span of the chunks.
func TestOf(t *testing.T) {
	ms := int64(time.Millisecond)
	chunks := []tape.Chunk{{T: 0}, {T: 10 * ms}, {T: 5 * ms}, {T: 2005 * ms}}
	m := Of(chunks, &protocol.Usage{Input: 7, Output: 40}, time.Second)
	if m.Gaps != 3 || m.GapMax != 2000*ms || m.GapP50 != 10*ms || m.Stalls != 1 || m.StallNs != int64(time.Second) {
		t.Errorf("gaps %+v", m)
	}
	if m.TokensIn != 7 || m.TokensOut != 40 || m.TokensPerS < 19.9 || m.TokensPerS > 20 {
		t.Errorf("tokens %+v, want 40 out at about 20/s", m)
	}
	if got := m.Line(); got != "gaps p50 10ms p99 2s max 2s · 1 stall over 1s · tokens in 7 out 40 · 20.0 tokens/s" {
		t.Errorf("Line() = %q", got)
	}
	m.Untime()
	m.SetUsage(&protocol.Usage{Output: 40}, chunks)
	if m.Gaps != 0 || m.TokensPerS != 0 || m.TokensOut != 40 {
		t.Errorf("untimed %+v: usage only", m)
	}
}
