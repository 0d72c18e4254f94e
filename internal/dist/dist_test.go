package dist

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

// TestPercentile: the nearest rank of samples held whole, sorted in place
// when they are not.
func TestPercentile(t *testing.T) {
	tests := []struct {
		samples []int64
		p       float64
		want    int64
	}{
		{nil, 50, 0},
		{[]int64{7}, 99, 7},
		{[]int64{5, 1, 4, 2, 3}, 50, 3},
		{[]int64{5, 1, 4, 2, 3}, 100, 5},
		{[]int64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}, 90, 90},
		{[]int64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}, 99, 100},
		{[]int64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}, 1, 10},
	}
	for _, tc := range tests {
		if got := Percentile(slices.Clone(tc.samples), tc.p); got != tc.want {
			t.Errorf("Percentile(%v, %v) = %d, want %d", tc.samples, tc.p, got, tc.want)
		}
	}
}

// TestGrow: a Dist grown for the values to come adds them without
// allocating, and answers as one that was not grown.
func TestGrow(t *testing.T) {
	var grown, plain Dist
	allocs := testing.AllocsPerRun(1, func() {
		grown = Dist{}
		grown.Grow(1000)
		for i := range 1000 {
			grown.Add(int64(i * 7 % 1000))
		}
	})
	if allocs > 1 {
		t.Errorf("%v allocations, want 1", allocs)
	}
	for i := range 1000 {
		plain.Add(int64(i * 7 % 1000))
	}
	for _, p := range []float64{1, 50, 99, 100} {
		if g, w := grown.Percentile(p), plain.Percentile(p); g != w {
			t.Errorf("p%g: grown %d, plain %d", p, g, w)
		}
	}
}
