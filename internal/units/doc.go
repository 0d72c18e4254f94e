// Package units formats the sizes and durations seam shows people, in one
// system everywhere: the record line, the progress line, inspect's text
// report, stats, the TUI, the HTML report's chart and seam-bench's table.
//
// Sizes are in binary units (B, KiB, MiB, GiB, TiB: powers of 1024, the
// IEC names), because every limit seam states (a 64 KiB free body, a
// 16 MiB writer queue, a 24 MiB event-stream message, in notes written into
// captures, in errors and in the docs) is a power of two and reads exactly
// in them, where decimal units would show 16 MiB as 16.8 MB; the IEC names
// also leave no doubt which system a figure is in. Durations are in the
// largest of ns, µs, ms and s they reach, with at most one decimal in
// milliseconds and three in seconds, so a time in a stream keeps the
// millisecond past the first second: 37µs, 412.3ms, 2.484s, 2.5s.
//
// It formats for reading, not for machines: JSON carries raw numbers
// (bytes, nanoseconds), and nothing parses what this package writes.
package units
