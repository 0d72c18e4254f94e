// Package textreport draws what seam finds as text for a terminal.
//
// For one capture it writes inspect's report: per exchange a verdict line
// saying what is wrong and where it was born, the request, the findings,
// the timing and the session, what each side assembled to, where the
// clients disagree and the diffs, then the sessions and a summary (Write,
// or Writer exchange by exchange); one diff (WriteDiff, ShortenDiff), what
// one emulated client ends up with (WriteClient) and the sessions
// (WriteSessions, SessionSummary).
//
// Across captures it draws the figures of seam stats, the
// one-line-per-exchange summary of seam inspect over many captures, a seam
// grep match, the list of detectors and the shaping engine's switches, in
// tables that fit a width by leaving columns out (Table) and paragraphs
// wrapped to one (Wrap), and help text fitted to one (FitHelp). A long run over many captures
// draws a progress line (Progress).
//
// The layout is for an 80-column terminal: prose wrapped, long texts,
// arguments and runs of diff lines cut with a count of what was left out
// (seam inspect --json and the TUI show everything). Text from a capture
// is drawn with package visible's markers or quoted; the report reads well
// without colour, and colour only adds ANSI highlighting.
//
// It computes nothing: the report, its findings, diffs and comparisons are
// package inspect's and its siblings', whose JSON writer is the report's
// schema; nor does it find the terminal's width or decide colour (cmd/seam
// does).
package textreport
