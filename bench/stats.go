package bench

import (
	"math"
	"slices"
)

// Percentile returns the p-th percentile (0 < p ≤ 100) of samples by the
// nearest-rank method, sorting samples in place; 0 for no samples.
func Percentile(samples []int64, p float64) int64 {
	if len(samples) == 0 {
		return 0
	}
	if !slices.IsSorted(samples) {
		slices.Sort(samples)
	}
	rank := int(math.Ceil(p/100*float64(len(samples)))) - 1
	return samples[min(max(rank, 0), len(samples)-1)]
}
