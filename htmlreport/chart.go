package htmlreport

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/tape"
)

// Chart geometry, in SVG user units (the chart scales to the page width).
const (
	chartW     = 960
	plotLeft   = 72
	plotRight  = chartW - 16
	plotTop    = 36
	plotBottom = 196
	laneH      = 14
	laneGap    = 6
	// maxStalls bounds the stalls drawn per side; the caption counts all.
	maxStalls = 400
)

// chartSide is the data of one side the chart draws.
type chartSide struct {
	side tape.Side
	// name labels the side: its name, or a WebSocket direction; lane is
	// the short label of its lane.
	name, lane string
	chunks     []tape.Chunk
	// endT is the time of the side's end line, or -1.
	endT int64
}

// chartMark is a moment the chart marks with a vertical line: where the
// sides diverge, or where the first finding was born.
type chartMark struct {
	side  tape.Side
	event int
	t     int64
	label string
}

// chartView is the timing chart as the template draws it: every number is
// already formatted, every path already built.
type chartView struct {
	W, H    int
	Title   string
	Desc    string
	PlotX   string
	PlotY   string
	PlotW   string
	PlotH   string
	Grid    string
	XLabels []chartLabel
	YLabels []chartLabel
	Lines   []chartLine
	Lanes   []chartLane
	// Legend names the lines, one per side drawn.
	Legend    []chartKey
	Marks     []chartMarkView
	Threshold string
	// Stalls counts the stalls of every side, in words.
	Stalls string
}

type chartLabel struct {
	X, Y, Anchor, Text string
}

// chartKey is a legend entry: the class that colours a side, and its name.
type chartKey struct {
	Class, Name string
}

type chartLine struct {
	Class, D string
}

type chartLane struct {
	Side       string
	Class      string
	Y, H       string
	LabelY     string
	Ticks      string
	Stalls     []chartRect
	Shown      int
	StallCount int
}

type chartRect struct {
	X, Y, W, H string
	// PlotY and PlotH shade the same span across the plot area.
	PlotY, PlotH string
	Title        string
}

type chartMarkView struct {
	X, Y1, Y2      string
	LabelX, LabelY string
	Anchor         string
	Label          string
	Dot            bool
	DotX, DotY     string
	Class          string
}

// chartScale maps times (ns) and byte counts onto the plot.
type chartScale struct {
	origin, span, yMax int64
}

// x is the horizontal position of time t, clamped to the plot.
func (sc chartScale) x(t int64) float64 {
	v := float64(t-sc.origin) / float64(sc.span)
	return plotLeft + math.Max(0, math.Min(1, v))*(plotRight-plotLeft)
}

// y is the vertical position of b bytes.
func (sc chartScale) y(b int64) float64 {
	return plotBottom - float64(b)/float64(sc.yMax)*(plotBottom-plotTop)
}

// chartExtent returns the time span the chart covers from origin (at
// least 1) and the most bytes a side has; false when no side has a byte.
func chartExtent(origin int64, sides []chartSide, marks []chartMark) (span, maxBytes int64, ok bool) {
	t1 := origin
	for _, s := range sides {
		if len(s.chunks) == 0 {
			continue
		}
		ok = true
		last := s.chunks[len(s.chunks)-1]
		t1 = max(t1, last.T, s.endT)
		maxBytes = max(maxBytes, last.Off+int64(len(last.Data)))
	}
	for _, m := range marks {
		t1 = max(t1, m.t)
	}
	return max(t1-origin, 1), max(maxBytes, 1), ok
}

// buildChart lays out the bytes-over-time chart of an exchange's sides:
// times relative to origin (the request), stalls longer than stall
// nanoseconds shaded, marks drawn as vertical lines. It returns nil when no
// side has a byte.
func buildChart(ex int, origin int64, sides []chartSide, marks []chartMark, stall int64) *chartView {
	span, maxBytes, ok := chartExtent(origin, sides, marks)
	if !ok {
		return nil
	}
	// Round the byte axis up to a tick so the top line is labelled.
	yStep := niceByteStep(maxBytes, 4)
	sc := chartScale{origin: origin, span: span, yMax: (maxBytes + yStep - 1) / yStep * yStep}
	c := &chartView{
		W: chartW, Title: "Bytes over time, exchange " + strconv.Itoa(ex),
		PlotX: num(plotLeft), PlotY: num(plotTop), PlotW: num(plotRight - plotLeft), PlotH: num(plotBottom - plotTop),
	}
	if stall > 0 {
		c.Threshold = units.Duration(stall)
	}
	var grid strings.Builder
	for b := int64(0); b <= sc.yMax; b += yStep {
		yy := num(sc.y(b))
		grid.WriteString("M" + num(plotLeft) + " " + yy + "H" + num(plotRight))
		c.YLabels = append(c.YLabels, chartLabel{X: num(plotLeft - 6), Y: num(sc.y(b) + 4), Anchor: "end", Text: units.Bytes(b)})
	}

	laneTop := float64(plotBottom + laneGap + 4)
	total := 0
	var desc []string
	for _, s := range sides {
		if len(s.chunks) == 0 {
			continue
		}
		class := sideClass(s.side)
		c.Lines = append(c.Lines, chartLine{Class: "line " + class, D: stepPath(s, origin, sc.x, sc.y)})
		c.Legend = append(c.Legend, chartKey{Class: class, Name: s.name})
		lane := sc.lane(s, class, laneTop, stall)
		total += lane.StallCount
		c.Lanes = append(c.Lanes, lane)
		last := s.chunks[len(s.chunks)-1]
		desc = append(desc, s.name+": "+commas(last.Off+int64(len(last.Data)))+" bytes in "+
			strconv.Itoa(len(s.chunks))+" chunks, "+units.Count(lane.StallCount, "stall"))
		laneTop += laneH + laneGap
	}
	axisY, xStep := laneTop+12, niceStep(span, 9)
	for t := int64(0); t <= span; t += xStep {
		xx := num(sc.x(origin + t))
		grid.WriteString("M" + xx + " " + num(plotTop) + "V" + num(plotBottom))
		c.XLabels = append(c.XLabels, chartLabel{X: xx, Y: num(axisY), Anchor: "middle", Text: units.Duration(t)})
	}
	c.Grid = grid.String()
	c.Stalls = units.Count(total, "stall")
	c.H = int(axisY + 8)
	c.Marks = sc.markViews(marks, sides, laneTop)
	c.Desc = "Cumulative body bytes of each side against time since the request (" +
		strings.Join(desc, "; ") + ")."
	if c.Threshold != "" {
		c.Desc += " Stalls are gaps over " + c.Threshold + "."
	}
	return c
}

// lane lays out side s's lane at laneTop: its chunk ticks and its stalls
// over stall, at most maxStalls of them shaded.
func (sc chartScale) lane(s chartSide, class string, laneTop float64, stall int64) chartLane {
	lane := chartLane{Side: s.lane, Class: class, Y: num(laneTop), H: num(laneH), LabelY: num(laneTop + laneH - 3)}
	lane.Ticks = tickPath(s.chunks, sc.x, laneTop, laneTop+laneH)
	for _, g := range stalls(s, stall) {
		lane.StallCount++
		if len(lane.Stalls) >= maxStalls {
			continue
		}
		x0, x1 := sc.x(g.from), sc.x(g.to)
		lane.Stalls = append(lane.Stalls, chartRect{
			X: num(x0), W: num(math.Max(x1-x0, 1)), Y: num(laneTop), H: num(laneH),
			PlotY: num(plotTop), PlotH: num(plotBottom - plotTop),
			Title: g.title(s.name),
		})
	}
	lane.Shown = len(lane.Stalls)
	return lane
}

// markViews lays out the marks as vertical lines down to the lanes'
// bottom (laneTop), each with a dot where its side's line stood then.
// Labels alternate between two rows above the plot, anchored away from
// the edge they are near.
func (sc chartScale) markViews(marks []chartMark, sides []chartSide, laneTop float64) []chartMarkView {
	var out []chartMarkView
	for i, m := range marks {
		xx := sc.x(m.t)
		mv := chartMarkView{
			X: num(xx), Y1: num(plotTop - 6), Y2: num(laneTop - laneGap),
			LabelY: num(float64(plotTop - 10 - 14*(i%2))), Label: m.label, Class: "mark",
		}
		if i > 0 {
			mv.Class = "mark mark2"
		}
		switch {
		case xx > (plotLeft+plotRight)/2:
			mv.Anchor, mv.LabelX = "end", num(xx-3)
		default:
			mv.Anchor, mv.LabelX = "start", num(xx+3)
		}
		for _, s := range sides {
			if s.side == m.side && len(s.chunks) > 0 {
				mv.Dot, mv.DotX, mv.DotY = true, mv.X, num(sc.y(bytesAt(s.chunks, m.t)))
			}
		}
		out = append(out, mv)
	}
	return out
}

// sideClass is the CSS class that colours a side.
func sideClass(s tape.Side) string {
	if s == tape.Upstream {
		return "up"
	}
	return "cl"
}

// stepPath draws a side's cumulative bytes as a step line. Times that land
// on the same half unit (about half a pixel) are merged, so the path stays
// bounded by the chart's resolution however many chunks the side has.
func stepPath(s chartSide, origin int64, x func(int64) float64, y func(int64) float64) string {
	lastX, lastY := roundHalf(x(origin)), roundTenth(y(0))
	b := append([]byte{'M'}, half(lastX)...)
	b = append(append(b, ' '), num(lastY)...)
	for _, ch := range s.chunks {
		if xs := roundHalf(x(ch.T)); xs != lastX {
			b = appendCoord(append(b, 'H'), xs)
			lastX = xs
		}
		if ys := roundTenth(y(ch.Off + int64(len(ch.Data)))); ys != lastY {
			b = appendCoord(append(b, 'V'), ys)
			lastY = ys
		}
	}
	if s.endT >= 0 {
		if xs := roundHalf(x(s.endT)); xs != lastX {
			b = appendCoord(append(b, 'H'), xs)
		}
	}
	return string(b)
}

// tickPath draws one tick per chunk between y0 and y1, one per half unit
// of width at most.
func tickPath(chunks []tape.Chunk, x func(int64) float64, y0, y1 float64) string {
	var b []byte
	last := math.NaN()
	top, h := num(y0), num(y1-y0)
	for _, ch := range chunks {
		xs := roundHalf(x(ch.T))
		if xs == last {
			continue
		}
		last = xs
		b = appendCoord(append(b, 'M'), xs)
		b = append(append(append(append(b, ' '), top...), 'v'), h...)
	}
	return string(b)
}

// gap is a stretch of a side without bytes.
type gap struct {
	from, to int64
	// after is the chunk the gap follows; end is set for the gap between
	// the last chunk and the end of the stream.
	after int
	end   bool
}

func (g gap) title(side string) string {
	d := units.Duration(g.to - g.from)
	if g.end {
		return side + ": no bytes for " + d + " before the stream ended"
	}
	return side + ": no bytes for " + d + " after chunk " + strconv.Itoa(g.after) +
		" (" + units.Duration(g.from) + " after the request)"
}

// stalls returns the gaps of a side longer than threshold: between
// chunks, and between the last chunk and the end line. A threshold of 0
// finds none.
func stalls(s chartSide, threshold int64) []gap {
	if threshold <= 0 {
		return nil
	}
	var out []gap
	for i := 1; i < len(s.chunks); i++ {
		if d := s.chunks[i].T - s.chunks[i-1].T; d > threshold {
			out = append(out, gap{from: s.chunks[i-1].T, to: s.chunks[i].T, after: i - 1})
		}
	}
	if n := len(s.chunks); n > 0 && s.endT-s.chunks[n-1].T > threshold {
		out = append(out, gap{from: s.chunks[n-1].T, to: s.endT, after: n - 1, end: true})
	}
	return out
}

// bytesAt returns how many bytes of a side had arrived by time t.
func bytesAt(chunks []tape.Chunk, t int64) int64 {
	i := sort.Search(len(chunks), func(i int) bool { return chunks[i].T > t })
	if i == 0 {
		return 0
	}
	last := chunks[i-1]
	return last.Off + int64(len(last.Data))
}

// niceStep returns the smallest step of 1, 2 or 5 times a power of ten
// that cuts span into at most n parts, the last one possibly partial.
func niceStep(span int64, n int64) int64 {
	if span <= 0 {
		return 1
	}
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if s := m * p; (span+s-1)/s <= n {
				return s
			}
		}
		if p > math.MaxInt64/100 {
			return span
		}
	}
}

// niceByteStep returns the smallest step of 1, 2 or 5 times a power of
// ten below a thousand, times a power of 1024, that cuts span into at most
// n parts: 500 B, 1 KiB, 20 KiB, 2 MiB, which units.Bytes writes whole.
func niceByteStep(span int64, n int64) int64 {
	for unit := int64(1); ; unit *= 1024 {
		for _, m := range []int64{1, 2, 5, 10, 20, 50, 100, 200, 500} {
			if s := m * unit; (span+s-1)/s <= n {
				return s
			}
		}
		if unit > math.MaxInt64/(1024*1024) {
			return max(span, 1)
		}
	}
}

// num formats a coordinate to one decimal, without a trailing ".0".
func num(v float64) string { return string(appendCoord(nil, roundTenth(v))) }

// half formats a horizontal position rounded to half a unit, the
// resolution at which paths merge points.
func half(v float64) string { return string(appendCoord(nil, roundHalf(v))) }

// roundTenth and roundHalf round a coordinate as num and half write it;
// paths compare the rounded values, and format only those they write.
func roundTenth(v float64) float64 { return math.Round(v*10) / 10 }
func roundHalf(v float64) float64  { return math.Round(v*2) / 2 }

// appendCoord appends a rounded coordinate, without a trailing ".0".
func appendCoord(b []byte, v float64) []byte { return strconv.AppendFloat(b, v, 'f', -1, 64) }
