// Package timing measures how one side of an exchange streamed, from its
// recorded chunks: the gaps between chunks (nearest-rank p50, p99, largest),
// the stalls past a threshold, and the tokens its usage reports with the
// output tokens per second. A side whose chunk times are not measurements
// (an import, times that go back) keeps only its usage.
//
// It reads chunks and a usage; it judges nothing: inspect puts a side's
// Metrics in its report, and the views and stats read them.
package timing
