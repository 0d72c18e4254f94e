package timing

import (
	"fmt"
	"strings"
	"time"

	"github.com/seam-dev/seam/internal/dist"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
)

// DefaultStall is the gap between two chunks of a side beyond which it
// counts as a stall, unless the caller asks for another.
const DefaultStall = time.Second

// Metrics are the timing and throughput figures of one side of an
// exchange.
type Metrics struct {
	// Gaps is the number of gaps between consecutive chunks (chunks - 1).
	Gaps int `json:"gaps"`
	// GapP50, GapP99 and GapMax are the nearest-rank median, 99th
	// percentile and largest gap, in nanoseconds (0 without gaps).
	GapP50 int64 `json:"gap_p50_ns"`
	GapP99 int64 `json:"gap_p99_ns"`
	GapMax int64 `json:"gap_max_ns"`
	// Stalls counts the gaps longer than StallNs.
	Stalls  int   `json:"stalls"`
	StallNs int64 `json:"stall_ns"`
	// TokensIn and TokensOut are the usage the stream reports (0 when it
	// reports none).
	TokensIn  int `json:"tokens_in,omitempty"`
	TokensOut int `json:"tokens_out,omitempty"`
	// TokensPerS is TokensOut over the time from the first chunk to the
	// last, 0 when usage is not reported or the side has a single chunk.
	TokensPerS float64 `json:"tokens_per_s,omitempty"`

	// untimed is set when the chunk times are not measurements (an
	// import, or times that go back): only the usage counts.
	untimed bool
}

// Untime drops the figures that read chunk times, for a side whose times
// are not measurements.
func (m *Metrics) Untime() {
	*m = Metrics{StallNs: m.StallNs, TokensIn: m.TokensIn, TokensOut: m.TokensOut, untimed: true}
}

// Of computes the metrics of a side's chunks, with usage u (nil
// when the side reports none) and stalls counted beyond stall.
func Of(chunks []tape.Chunk, u *protocol.Usage, stall time.Duration) *Metrics {
	m := &Metrics{StallNs: int64(stall)}
	if n := len(chunks); n > 1 {
		var d dist.Dist
		d.Grow(n - 1)
		for i := 1; i < n; i++ {
			g := max(chunks[i].T-chunks[i-1].T, 0) // a time going back counts as 0
			d.Add(g)
			if g > int64(stall) {
				m.Stalls++
			}
		}
		m.Gaps = d.Count()
		m.GapP50, m.GapP99, m.GapMax = d.Percentile(50), d.Percentile(99), d.Max()
	}
	m.SetUsage(u, chunks)
	return m
}

// SetUsage sets the usage figures to u's (none when u is nil), and the
// output tokens per second over the time from the first of chunks to the
// last unless the times are not measurements.
func (m *Metrics) SetUsage(u *protocol.Usage, chunks []tape.Chunk) {
	m.TokensIn, m.TokensOut, m.TokensPerS = 0, 0, 0
	if u == nil {
		return
	}
	m.TokensIn, m.TokensOut = u.Input, u.Output
	if n := len(chunks); n > 1 && u.Output > 0 && !m.untimed {
		if span := chunks[n-1].T - chunks[0].T; span > 0 {
			m.TokensPerS = float64(u.Output) / (float64(span) / 1e9)
		}
	}
}

// Line renders the metrics on one line, as the text report and the TUI
// show them: "gaps p50 … p99 … max … · 2 stalls over 1s · tokens in 120
// out 40 · 85.1 tokens/s", or "" when there is nothing to say.
func (m *Metrics) Line() string {
	if m == nil {
		return ""
	}
	var parts []string
	if m.Gaps > 0 {
		parts = append(parts, "gaps p50 "+units.Duration(m.GapP50)+" p99 "+units.Duration(m.GapP99)+" max "+units.Duration(m.GapMax),
			units.Count(m.Stalls, "stall")+" over "+units.Duration(m.StallNs))
	}
	if m.TokensIn > 0 || m.TokensOut > 0 {
		parts = append(parts, fmt.Sprintf("tokens in %d out %d", m.TokensIn, m.TokensOut))
	}
	if m.TokensPerS > 0 {
		parts = append(parts, fmt.Sprintf("%.1f tokens/s", m.TokensPerS))
	}
	return strings.Join(parts, " · ")
}
