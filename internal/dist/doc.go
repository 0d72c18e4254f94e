// Package dist provides nearest-rank percentiles: Percentile over a slice
// of samples held whole (the benchmarks'), and Dist, a sketch that answers
// them in bounded memory over any number of values (stream gaps, times to
// first byte across many captures).
//
// One rule serves both: the p-th percentile is the smallest value such
// that at least p% of the values are at most it. Dist applies it exactly
// while it holds at most 4096 values, then within 0.5% from a histogram of
// logarithmic buckets.
//
// It does not interpolate between values, merge sketches, or format what
// it computes (internal/units formats durations and sizes).
package dist
