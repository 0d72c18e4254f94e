package dist

import (
	"math"
	"slices"
)

// exactValues is how many values a Dist keeps exactly before it switches
// to its histogram.
const exactValues = 4096

// histBase is the ratio between the bounds of two neighbouring histogram
// buckets: a value read back from a bucket (its geometric middle) is
// within 0.5% of every value the bucket counted.
const histBase = 1.01

// Dist collects non-negative durations (or any int64 amounts) and answers
// nearest-rank percentiles in bounded memory: exactly while it holds at
// most 4096 values, then from a histogram of logarithmic buckets whose
// answers are within 0.5% of the true value. Count and Max are always
// exact. The zero value is an empty Dist.
type Dist struct {
	n        int
	min, max int64
	exact    []int64
	sorted   bool
	// hist counts values by bucket once exact overflowed; bucket 0 holds
	// every value below 1.
	hist map[int]int
}

// Add records one value; negative values count as 0.
func (d *Dist) Add(v int64) {
	v = max(v, 0)
	if d.n == 0 || v < d.min {
		d.min = v
	}
	if d.n == 0 || v > d.max {
		d.max = v
	}
	d.n++
	if d.hist == nil {
		d.exact = append(d.exact, v)
		d.sorted = false
		if len(d.exact) > exactValues {
			d.hist = map[int]int{}
			for _, x := range d.exact {
				d.hist[bucket(x)]++
			}
			d.exact = nil
		}
		return
	}
	d.hist[bucket(v)]++
}

// Count is the number of values added.
func (d *Dist) Count() int { return d.n }

// Max is the largest value, 0 when empty.
func (d *Dist) Max() int64 { return d.max }

// Grow makes room for n more values without allocating again while they
// are held exactly (a caller that knows how many values come, say the
// gaps between a side's chunks).
func (d *Dist) Grow(n int) {
	if d.hist == nil && n > 0 {
		d.exact = slices.Grow(d.exact, min(n, exactValues+1-len(d.exact)))
	}
}

// Percentile returns the nearest-rank p-th percentile (0 < p ≤ 100): the
// smallest value such that at least p% of the values are at most it. It is
// 0 for an empty Dist.
func (d *Dist) Percentile(p float64) int64 {
	if d.n == 0 {
		return 0
	}
	rank := rankOf(p, d.n)
	if d.hist == nil {
		if !d.sorted {
			slices.Sort(d.exact)
			d.sorted = true
		}
		return d.exact[rank-1]
	}
	if rank == d.n {
		return d.max
	}
	keys := make([]int, 0, len(d.hist))
	for b := range d.hist {
		keys = append(keys, b)
	}
	slices.Sort(keys)
	seen := 0
	for _, b := range keys {
		seen += d.hist[b]
		if seen >= rank {
			return min(max(bucketValue(b), d.min), d.max)
		}
	}
	return d.max
}

// bucket returns the histogram bucket of v: 0 below 1, else 1 +
// floor(log_1.01 v).
func bucket(v int64) int {
	if v < 1 {
		return 0
	}
	return 1 + int(math.Floor(math.Log(float64(v))/math.Log(histBase)))
}

// bucketValue is the geometric middle of bucket b.
func bucketValue(b int) int64 {
	if b == 0 {
		return 0
	}
	lo := math.Pow(histBase, float64(b-1))
	return int64(math.Round(lo * math.Sqrt(histBase)))
}

// Percentile returns the nearest-rank p-th percentile (0 < p ≤ 100) of
// samples, sorting them in place when they are not sorted; 0 for no
// samples. It is exact, for samples held whole; Dist answers by the same
// rule in bounded memory.
func Percentile(samples []int64, p float64) int64 {
	if len(samples) == 0 {
		return 0
	}
	if !slices.IsSorted(samples) {
		slices.Sort(samples)
	}
	return samples[rankOf(p, len(samples))-1]
}

// rankOf is the nearest rank of the p-th percentile among n values, from 1
// to n.
func rankOf(p float64, n int) int {
	return min(max(int(math.Ceil(p/100*float64(n))), 1), n)
}
