package gctune

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestBatchGC: a command reading captures through collects at its own
// target under a soft memory limit, unless GOGC or GOMEMLIMIT say
// otherwise.
func TestBatchGC(t *testing.T) {
	gc := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetGCPercent(gc); debug.SetMemoryLimit(limit) })
	for _, tc := range []struct {
		env   map[string]string
		gogc  int
		limit int64
	}{
		{nil, BatchPercent, BatchMemoryLimit},
		{map[string]string{"GOMEMLIMIT": "2GiB"}, BatchPercent, math.MaxInt64},
		{map[string]string{"GOGC": "100"}, 100, math.MaxInt64},
	} {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
		Batch(func(k string) string { return tc.env[k] })
		if got := debug.SetGCPercent(100); got != tc.gogc {
			t.Errorf("env %v: GC target %d, want %d", tc.env, got, tc.gogc)
		}
		if got := debug.SetMemoryLimit(-1); got != tc.limit {
			t.Errorf("env %v: memory limit %d, want %d", tc.env, got, tc.limit)
		}
	}
}
