// Package textreport writes inspect's report as terminal text: per
// exchange a verdict line saying what is wrong and where it was born, the
// request, the findings, the timing and the session, what each side
// assembled to, where the clients disagree and the diffs, then the
// sessions and a summary (Write, or Writer exchange by exchange); one
// diff (WriteDiff, ShortenDiff), what one emulated client ends up with
// (WriteClient) and the sessions (WriteSessions, SessionSummary).
//
// The layout is for an 80-column terminal: prose wrapped, long texts,
// arguments and runs of diff lines cut with a count of what was left out
// (seam inspect --json and the TUI show everything). Text from a capture
// is drawn with package visible's markers or quoted; the report reads
// well without colour, and colour only adds ANSI highlighting.
//
// It computes nothing: the report, its findings, diffs and comparisons
// are package inspect's, whose JSON writer is the report's schema.
package textreport
