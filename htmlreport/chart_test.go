package htmlreport

import (
	"strings"
	"testing"

	"github.com/seam-dev/seam/tape"
)

func chunksAt(times ...int64) []tape.Chunk {
	var out []tape.Chunk
	off := int64(0)
	for _, t := range times {
		out = append(out, tape.Chunk{T: t, Off: off, Data: []byte("0123456789")})
		off += 10
	}
	return out
}

// TestStalls finds the gaps over the threshold, between chunks and before
// the end line, and none at threshold 0.
func TestStalls(t *testing.T) {
	const ms = int64(1e6)
	s := chartSide{side: tape.Client, name: "client", lane: "client", chunks: chunksAt(0, 100*ms, 500*ms, 550*ms), endT: 900 * ms}
	got := stalls(s, 300*ms)
	if len(got) != 2 || got[0] != (gap{from: 100 * ms, to: 500 * ms, after: 1}) || got[1] != (gap{from: 550 * ms, to: 900 * ms, after: 3, end: true}) {
		t.Fatalf("stalls over 300ms: %+v", got)
	}
	if title := got[0].title("client"); title != "client: no bytes for 400ms after chunk 1 (100ms after the request)" {
		t.Errorf("title %q", title)
	}
	if title := got[1].title("client"); title != "client: no bytes for 350ms before the stream ended" {
		t.Errorf("title %q", title)
	}
	if got := stalls(s, 400*ms); len(got) != 0 {
		t.Errorf("a gap of exactly 400ms is not over 400ms: %+v", got)
	}
	if got := stalls(s, 0); got != nil {
		t.Errorf("threshold 0: %+v", got)
	}
}

// TestChartBounded draws a side of 200,000 chunks: the paths stay
// bounded by the chart's resolution, not by the chunk count.
func TestChartBounded(t *testing.T) {
	const n = 200_000
	times := make([]int64, n)
	for i := range times {
		times[i] = int64(i) * 1e6 // one a millisecond, 200 s in all
	}
	s := chartSide{side: tape.Upstream, name: "upstream", lane: "upstream", chunks: chunksAt(times...), endT: n * 1e6}
	c := buildChart(1, 0, []chartSide{s}, []chartMark{{side: tape.Upstream, event: 5, t: 5e8, label: "x"}}, 0)
	size := len(c.Grid)
	for _, l := range c.Lines {
		size += len(l.D)
	}
	for _, l := range c.Lanes {
		size += len(l.Ticks)
	}
	if size > 60_000 {
		t.Errorf("the chart of %d chunks draws %d bytes of paths", n, size)
	}
	if len(c.Marks) != 1 || !c.Marks[0].Dot {
		t.Errorf("marks: %+v", c.Marks)
	}
}

// TestChartScale checks the axes: the byte axis is rounded up to a tick,
// times read in the unit they reach, and a mark sits where its time is.
func TestChartScale(t *testing.T) {
	s := chartSide{side: tape.Client, name: "client", lane: "client", chunks: chunksAt(1e9, 2e9, 3e9), endT: 4e9}
	c := buildChart(1, 0, []chartSide{s}, []chartMark{{side: tape.Client, t: 2e9, label: "m"}}, 0)
	var xs, ys []string
	for _, l := range c.XLabels {
		xs = append(xs, l.Text)
	}
	for _, l := range c.YLabels {
		ys = append(ys, l.Text)
	}
	if got := strings.Join(xs, " "); got != "0s 500ms 1s 1.5s 2s 2.5s 3s 3.5s 4s" {
		t.Errorf("time axis %q", got)
	}
	if got := strings.Join(ys, " "); got != "0 B 10 B 20 B 30 B" {
		t.Errorf("byte axis %q", got)
	}
	// 2 s of 4 s is the middle of the plot.
	if mid := num((plotLeft + plotRight) / 2.0); c.Marks[0].X != mid {
		t.Errorf("mark at x=%s, want %s", c.Marks[0].X, mid)
	}
	if c.Marks[0].DotY != num(plotBottom-20.0/30*(plotBottom-plotTop)) {
		t.Errorf("the dot is at y=%s, not at the 20 bytes the side had at 2 s", c.Marks[0].DotY)
	}
	if c.Threshold != "" || len(c.Lanes[0].Stalls) != 0 {
		t.Error("stalls drawn at threshold 0")
	}
	if buildChart(1, 0, []chartSide{{side: tape.Client}}, nil, 0) != nil {
		t.Error("a chart for a side without bytes")
	}
}

func TestNiceStep(t *testing.T) {
	for _, c := range []struct{ span, n, want int64 }{
		{4040862449, 9, 5e8}, {4040862449, 8, 1e9}, {55205, 4, 2e4}, {1, 8, 1}, {9, 4, 5}, {30, 4, 10}, {31, 3, 20},
	} {
		if got := niceStep(c.span, c.n); got != c.want {
			t.Errorf("niceStep(%d, %d) = %d, want %d", c.span, c.n, got, c.want)
		}
	}
}

// TestNiceByteStep: byte axis steps are whole binary units past 1 KiB, so
// every label is exact.
func TestNiceByteStep(t *testing.T) {
	for _, c := range []struct{ span, n, want int64 }{
		{30, 4, 10}, {900, 4, 500}, {1500, 4, 500}, {3000, 4, 1 << 10}, {55205, 4, 20 << 10}, {3 << 20, 4, 1 << 20}, {0, 4, 1},
	} {
		if got := niceByteStep(c.span, c.n); got != c.want {
			t.Errorf("niceByteStep(%d, %d) = %d, want %d", c.span, c.n, got, c.want)
		}
	}
}
