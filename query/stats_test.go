package query

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/tape"
)

// TestStats: exchanges add up per group, the largest group first, with
// nearest-rank percentiles of time to first byte and gaps, stalls over the
// threshold, usage and outcomes; a key an exchange has no value for is "-".
func TestStats(t *testing.T) {
	ms := time.Millisecond
	slow := []time.Duration{10 * ms, 2 * time.Second}
	xs := []*tape.Exchange{
		chatExchange(1, `{"model":"m-a","stream":true,"messages":[]}`, slow, toolCallEvents("m-a", `{}`, 200, 20)...),
		chatExchange(2, `{"model":"m-b","stream":true,"messages":[]}`, nil, toolCallEvents("m-b", `{}`, 100, 10)...),
		chatExchange(3, `{"model":"m-a","stream":true,"messages":[]}`, slow, toolCallEvents("m-a", `{}`, 200, 20)...),
	}
	c := capture("c.ndjson", xs...)
	rep := inspect.Inspect(c, inspect.Options{AssembleOnly: true})
	st, err := NewStats([]string{"model", "session"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range xs {
		st.Add(c.Name, &c.Header, x, rep.Exchanges[i])
	}
	groups := st.Groups()
	if len(groups) != 2 {
		t.Fatalf("%d groups, want 2", len(groups))
	}
	a, b := groups[0], groups[1]
	if a.Key["model"] != "m-a" || a.Key["session"] != "-" || a.Exchanges != 2 || b.Key["model"] != "m-b" || b.Exchanges != 1 {
		t.Fatalf("groups %v (%d), %v (%d)", a.Key, a.Exchanges, b.Key, b.Exchanges)
	}
	// m-a's gaps: 10ms, 2s, 1ms, 1ms twice.
	if want := (Summary{N: 8, P50: int64(ms), P90: int64(2 * time.Second), P99: int64(2 * time.Second), Max: int64(2 * time.Second)}); a.Gap != want {
		t.Errorf("gaps %+v, want %+v", a.Gap, want)
	}
	if want := (Summary{N: 2, P50: int64(200 * ms), P90: int64(200 * ms), P99: int64(200 * ms), Max: int64(200 * ms)}); a.TTFB != want {
		t.Errorf("ttfb %+v, want %+v", a.TTFB, want)
	}
	if a.Stalls != 2 || a.StalledExchanges != 2 || a.StallNs != int64(inspect.DefaultStall) || b.Stalls != 0 {
		t.Errorf("stalls %d in %d exchanges over %d; m-b %d", a.Stalls, a.StalledExchanges, a.StallNs, b.Stalls)
	}
	if a.TokensIn != 400 || a.TokensOut != 40 || a.UsageExchanges != 2 || a.Outcomes["complete"] != 2 || a.Failed != 0 {
		t.Errorf("tokens %d/%d in %d, outcomes %v, failed %d", a.TokensIn, a.TokensOut, a.UsageExchanges, a.Outcomes, a.Failed)
	}
	// 40 tokens over two streams of 2.012 s each.
	if want := 40 / 4.024; a.TokensPerS < want*0.999 || a.TokensPerS > want*1.001 {
		t.Errorf("tokens/s %v, want %v", a.TokensPerS, want)
	}
	if tot := st.Total(); tot.Exchanges != 3 || tot.Gap.N != 12 || tot.Stalls != 2 {
		t.Errorf("total: %d exchanges, %d gaps, %d stalls", tot.Exchanges, tot.Gap.N, tot.Stalls)
	}
	if _, err := NewStats([]string{"colour"}, 0); err == nil || !strings.Contains(err.Error(), `cannot group by "colour"`) {
		t.Errorf("unknown key: %v", err)
	}
}

// TestParseKeys: --by's list, space trimmed and empty entries left out.
func TestParseKeys(t *testing.T) {
	if got := ParseKeys(" model, ,endpoint,"); !slices.Equal(got, []string{"model", "endpoint"}) {
		t.Errorf("ParseKeys = %q", got)
	}
	if got := ParseKeys(""); len(got) != 0 {
		t.Errorf("ParseKeys(\"\") = %q", got)
	}
}
