package query

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/dist"
	"github.com/seam-dev/seam/tape"
)

// StatsKeys lists what Stats can group exchanges by.
func StatsKeys() []string {
	return []string{"model", "endpoint", "host", "session", "day", "capture", "protocol"}
}

// Stats adds up inspected exchanges into groups that share the values of
// its keys (model and endpoint, say): counts, outcomes, time to first byte
// and gaps between chunks as percentiles, stalls, tokens, tokens per
// second and findings by id. Percentiles are nearest-rank, over the side
// clients received, exact up to 4096 values per group and within 0.5%
// past them (dist.Dist). It is not safe for concurrent use.
type Stats struct {
	by     []string
	stall  time.Duration
	groups map[string]*StatsGroup
	total  *StatsGroup
}

// ParseKeys reads a comma-separated list of keys (seam stats --by),
// empty entries left out.
func ParseKeys(s string) []string {
	var keys []string
	for _, k := range strings.Split(s, ",") {
		if k = strings.TrimSpace(k); k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}

// NewStats returns Stats grouping by the given keys (of StatsKeys) and
// counting gaps longer than stall (0: inspect.DefaultStall) as stalls.
func NewStats(by []string, stall time.Duration) (*Stats, error) {
	for _, k := range by {
		if !slices.Contains(StatsKeys(), k) {
			return nil, fmt.Errorf("cannot group by %q (keys: %s)", k, strings.Join(StatsKeys(), ", "))
		}
	}
	if stall <= 0 {
		stall = inspect.DefaultStall
	}
	return &Stats{by: by, stall: stall, groups: map[string]*StatsGroup{}, total: newGroup(nil)}, nil
}

// StatsGroup is the figures of one group of exchanges.
type StatsGroup struct {
	// Key holds the group's value of each key ("-" when an exchange has
	// none: no model, no session, no known day).
	Key       map[string]string `json:"key"`
	Exchanges int               `json:"exchanges"`
	// Outcomes counts the exchanges by how the side clients received
	// ended ("open" when it has no end); HTTPErrors counts statuses of
	// 400 and above.
	Outcomes   map[string]int `json:"outcomes"`
	HTTPErrors int            `json:"http_errors"`
	// Failed counts the exchanges that did not end in success or got an
	// HTTP error status.
	Failed int `json:"failed"`
	// TTFB is the time from the request to the first byte of each
	// exchange, Gap every gap between two chunks of the side clients
	// received, in nanoseconds.
	TTFB Summary `json:"ttfb_ns"`
	Gap  Summary `json:"gap_ns"`
	// Stalls counts the gaps longer than StallNs, StalledExchanges the
	// exchanges with at least one.
	Stalls           int   `json:"stalls"`
	StalledExchanges int   `json:"stalled_exchanges"`
	StallNs          int64 `json:"stall_ns"`
	// TokensIn and TokensOut add up the usage of the UsageExchanges that
	// report it; TokensPerS is their output tokens over the time from
	// their first chunk to their last, for those that came in more than
	// one chunk (0 when none did).
	TokensIn       int     `json:"tokens_in"`
	TokensOut      int     `json:"tokens_out"`
	UsageExchanges int     `json:"usage_exchanges"`
	TokensPerS     float64 `json:"tokens_per_s"`
	// Findings counts the findings by detector id.
	Findings map[string]int `json:"findings"`

	ttfb, gap      dist.Dist
	rateOut, rateT int64
}

// Summary is a distribution in a few numbers: nearest-rank percentiles
// and the largest value (0 when N is 0).
type Summary struct {
	N   int   `json:"n"`
	P50 int64 `json:"p50"`
	P90 int64 `json:"p90"`
	P99 int64 `json:"p99"`
	Max int64 `json:"max"`
}

func newGroup(key map[string]string) *StatsGroup {
	return &StatsGroup{Key: key, Outcomes: map[string]int{}, Findings: map[string]int{}}
}

// Add counts one inspected exchange x of the capture named capture, whose
// header is h, and its report rep.
func (s *Stats) Add(capture string, h *tape.Header, x *tape.Exchange, rep *inspect.ExchangeReport) {
	key := make(map[string]string, len(s.by))
	var id strings.Builder
	for _, k := range s.by {
		v := statsValue(k, capture, h, x, rep)
		key[k] = v
		id.WriteString(v)
		id.WriteByte(0)
	}
	g := s.groups[id.String()]
	if g == nil {
		for k, v := range key {
			key[k] = strings.Clone(v) // not a piece of a request body
		}
		g = newGroup(key)
		s.groups[id.String()] = g
	}
	chunks := viewSide(x).Chunks
	for _, grp := range []*StatsGroup{g, s.total} {
		grp.add(rep, chunks, s.stall)
	}
}

func (g *StatsGroup) add(rep *inspect.ExchangeReport, chunks []tape.Chunk, stall time.Duration) {
	g.Exchanges++
	g.StallNs = int64(stall)
	out := string(rep.Outcome)
	if out == "" {
		out = "open"
	}
	g.Outcomes[out]++
	if rep.Status >= 400 {
		g.HTTPErrors++
	}
	if rep.Status >= 400 || !rep.Outcome.Success() {
		g.Failed++
	}
	if rep.TTFB >= 0 && len(chunks) > 0 {
		g.ttfb.Add(rep.TTFB)
	}
	if rep.Metrics == nil || rep.Metrics.Gaps == 0 {
		chunks = nil // no measured gaps (an import's times, a single chunk)
	}
	stalls := 0
	for i := 1; i < len(chunks); i++ {
		gap := max(chunks[i].T-chunks[i-1].T, 0)
		g.gap.Add(gap)
		if gap > int64(stall) {
			stalls++
		}
	}
	g.Stalls += stalls
	if stalls > 0 {
		g.StalledExchanges++
	}
	if m := rep.Metrics; m != nil && (m.TokensIn > 0 || m.TokensOut > 0) {
		g.TokensIn += m.TokensIn
		g.TokensOut += m.TokensOut
		g.UsageExchanges++
		if n := len(chunks); n > 1 && m.TokensPerS > 0 {
			g.rateOut += int64(m.TokensOut)
			g.rateT += chunks[n-1].T - chunks[0].T
		}
	}
	for _, f := range rep.Findings {
		if _, ok := g.Findings[f.ID]; !ok {
			g.Findings[strings.Clone(f.ID)] = 0
		}
		g.Findings[f.ID]++
	}
}

// finish computes the summaries.
func (g *StatsGroup) finish() {
	sum := func(d *dist.Dist) Summary {
		return Summary{N: d.Count(), P50: d.Percentile(50), P90: d.Percentile(90), P99: d.Percentile(99), Max: d.Max()}
	}
	g.TTFB, g.Gap = sum(&g.ttfb), sum(&g.gap)
	g.TokensPerS = 0
	if g.rateT > 0 {
		g.TokensPerS = float64(g.rateOut) / (float64(g.rateT) / 1e9)
	}
}

// Groups returns the groups, the largest first (then by key).
func (s *Stats) Groups() []*StatsGroup {
	out := make([]*StatsGroup, 0, len(s.groups))
	for _, g := range s.groups {
		g.finish()
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b *StatsGroup) int {
		if c := cmp.Compare(b.Exchanges, a.Exchanges); c != 0 {
			return c
		}
		for _, k := range s.by {
			if c := cmp.Compare(a.Key[k], b.Key[k]); c != 0 {
				return c
			}
		}
		return 0
	})
	return out
}

// Total returns the figures of every exchange added.
func (s *Stats) Total() *StatsGroup {
	s.total.finish()
	return s.total
}

// statsValue is an exchange's value of a grouping key.
func statsValue(k, capture string, h *tape.Header, x *tape.Exchange, rep *inspect.ExchangeReport) string {
	v := ""
	switch k {
	case "model":
		v = rep.Model
	case "endpoint":
		v = rep.Endpoint
	case "host":
		if rep.Origin != "" {
			_, v, _ = strings.Cut(rep.Origin, "://")
		} else if u, err := url.Parse(h.Upstream); err == nil {
			v = u.Host
		}
	case "session":
		if rep.Session != nil {
			v = rep.Session.ID
		}
	case "day":
		if !h.Started.IsZero() && x.Request != nil {
			v = h.Started.Add(time.Duration(x.Request.T)).UTC().Format("2006-01-02")
		}
	case "capture":
		v = capture
	case "protocol":
		v = string(rep.Protocol)
	}
	if v == "" {
		return "-"
	}
	return v
}

// viewSide returns the side clients received, as inspect.Inspect chooses
// it: the client side when it was recorded with bytes, else the upstream
// side.
func viewSide(x *tape.Exchange) *tape.SideData {
	c := &x.Client
	if len(c.Chunks) == 0 && (x.Upstream.Response != nil || len(x.Upstream.Chunks) > 0) {
		return &x.Upstream
	}
	return c
}
