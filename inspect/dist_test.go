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
// within 0.5% past them, whatever the spread; count, min, max and sum are
// always exact; merging equals adding.
func TestDistExactThenBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 100, 4096, 4097, 50000} {
		var d, a, b Dist
		vs := make([]int64, n)
		var sum float64
		for i := range vs {
			vs[i] = int64(math.Exp(rng.Float64() * 22)) // 1 ns to 3.6 s
			sum += float64(vs[i])
			d.Add(vs[i])
			if i%2 == 0 {
				a.Add(vs[i])
			} else {
				b.Add(vs[i])
			}
		}
		a.Merge(&b)
		for _, p := range []float64{1, 50, 90, 99, 100} {
			want := nearestRank(vs, p)
			for name, dd := range map[string]*Dist{"added": &d, "merged": &a} {
				got := dd.Percentile(p)
				if n <= exactValues && dd.Exact() && got != want {
					t.Errorf("n=%d %s p%g = %d, want exactly %d", n, name, p, got, want)
				}
				if rel := math.Abs(float64(got-want)) / float64(max(want, 1)); rel > 0.005 && math.Abs(float64(got-want)) > 1 {
					t.Errorf("n=%d %s p%g = %d, want %d (±0.5%%)", n, name, p, got, want)
				}
			}
		}
		if d.Count() != n || d.Max() != slices.Max(vs) || d.Min() != slices.Min(vs) || math.Abs(d.Sum()-sum) > 1e-6*sum {
			t.Errorf("n=%d: count %d max %d min %d sum %g", n, d.Count(), d.Max(), d.Min(), d.Sum())
		}
		if d.Exact() != (n <= exactValues) {
			t.Errorf("n=%d: exact %v", n, d.Exact())
		}
	}
	var empty Dist
	if empty.Percentile(50) != 0 || empty.Max() != 0 {
		t.Error("empty Dist is not 0")
	}
}
