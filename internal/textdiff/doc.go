// Package textdiff compares two texts the same way on every machine: a
// character diff (sergi/go-diff) for small texts, a line diff refined by
// character within a budget for larger ones, bounded by input size rather
// than by a wall-clock deadline, so a report or a golden does not depend on
// the machine's speed or load. ValidText and BytesBack let a caller diff
// text holding bytes that are not UTF-8 and map the result back onto them.
//
// It knows nothing of captures or reports: inspect cuts its results into
// hunks and regions.
package textdiff
