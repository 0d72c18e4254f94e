package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/seam-dev/seam/bench"
	"github.com/seam-dev/seam/internal/dist"
	"github.com/seam-dev/seam/internal/units"
)

// throughputRow is the table's row for n streams through p: throughput,
// time to first byte and (for a proxy) its CPU, memory and capture size,
// each against direct's where it compares.
func throughputRow(n int, p path, res, direct runResult, ps bench.ProcSummary, check *bench.CaptureCheck) []string {
	p50, p99 := dist.Percentile(res.TTFB, 50), dist.Percentile(res.TTFB, 99)
	row := []string{strconv.Itoa(n), p.name, fmt.Sprintf("%.0f", res.PerSecond()), ratio(res.PerSecond(), direct.PerSecond()),
		units.Duration(p50), units.Duration(p99), ratio(float64(p99), float64(dist.Percentile(direct.TTFB, 99)))}
	harness := perStream(res.harnessCPU, res.Streams)
	if p.start == nil {
		return append(row, "—", units.Duration(harness), "—", "—", "—")
	}
	proxyCPU := perStream(time.Duration(ps.Cores*float64(res.Elapsed)), res.Streams)
	return append(row, fmt.Sprintf("%.2f", ps.Cores), units.Duration(harness)+"+"+units.Duration(proxyCPU),
		units.Bytes(ps.PeakRSS), units.Bytes(ps.FirstHalf)+"→"+units.Bytes(ps.LastHalf), capRatio(check, res.Bytes))
}

func ratio(a, b float64) string {
	if b == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f×", a/b)
}

// added formats the delay a proxy adds, negative when the direct path was
// slower (noise): "37µs", "-4µs".
func added(ns int64) string {
	if ns < 0 {
		return "-" + units.Duration(-ns)
	}
	return units.Duration(ns)
}

func capRatio(c *bench.CaptureCheck, wire int64) string {
	if c == nil || wire == 0 {
		return "—"
	}
	s := fmt.Sprintf("%.3f", float64(c.Bytes)/float64(wire))
	if c.Incomplete > 0 {
		s += fmt.Sprintf(" (of %d exchanges, %d not recorded and %d cut short: the writer fell behind)", c.Exchanges, c.Skipped, c.Incomplete-c.Skipped)
	}
	return s
}

// runResult is a load run's result and the CPU time this process (the
// clients and the upstream) spent on it.
type runResult struct {
	bench.LoadResult
	harnessCPU time.Duration
	// lifeCPU is a seam record's CPU over its whole life (proxy.cpu).
	lifeCPU time.Duration
}

// perStream divides a CPU time among n streams.
func perStream(d time.Duration, n int) int64 {
	if n <= 0 {
		return 0
	}
	return int64(d) / int64(n)
}
