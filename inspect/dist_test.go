package inspect

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// nearestRank is the textbook nearest-rank percentile of vs.
func nearestRank(vs []int64, p float64) int64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	r := int(math.Ceil(p / 100 * float64(len(s))))
	return s[max(r, 1)-1]
}

// TestDistExactThenBounded: percentiles are exact up to 4096 values and
// within 0.5% past them, whatever the spread; count and max are always
// exact.
func TestDistExactThenBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 100, 4096, 4097, 50000} {
		var d Dist
		vs := make([]int64, n)
		for i := range vs {
			vs[i] = int64(math.Exp(rng.Float64() * 22)) // 1 ns to 3.6 s
			d.Add(vs[i])
		}
		for _, p := range []float64{1, 50, 90, 99, 100} {
			want := nearestRank(vs, p)
			got := d.Percentile(p)
			if n <= exactValues && got != want {
				t.Errorf("n=%d p%g = %d, want exactly %d", n, p, got, want)
			}
			if rel := math.Abs(float64(got-want)) / float64(max(want, 1)); rel > 0.005 && math.Abs(float64(got-want)) > 1 {
				t.Errorf("n=%d p%g = %d, want %d (±0.5%%)", n, p, got, want)
			}
		}
		if d.Count() != n || d.Max() != slices.Max(vs) {
			t.Errorf("n=%d: count %d max %d", n, d.Count(), d.Max())
		}
		if exact := d.hist == nil; exact != (n <= exactValues) {
			t.Errorf("n=%d: exact %v", n, exact)
		}
	}
	var empty Dist
	if empty.Percentile(50) != 0 || empty.Max() != 0 {
		t.Error("empty Dist is not 0")
	}
}
