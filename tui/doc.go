// Package tui is seam's terminal UI: a Bubble Tea program that lists the
// exchanges of one or more captures and shows each one's diffs, timeline,
// findings, request and raw bytes, and that replays an exchange in place
// through a changed engine so a fix can be seen taking effect. It is the
// only package of seam that imports charm.land modules; [Run] is its entry
// point.
//
// # What it paints
//
// Everything shown is computed by package inspect: the findings, the
// streamed-vs-final and upstream-vs-client diffs, and, after an engine
// switch is toggled, the recorded-vs-replayed diff (inspect's
// DiffExchangeReports of the recorded and the replayed exchange, the
// replay coming from package replay). The TUI never diffs texts itself; it
// only emphasises, inside a hunk, the bytes between the common prefix and
// suffix of a deleted line and the added line paired with it.
//
// Timeline event numbers are those of inspect's pointers: the TUI takes
// each side's events from inspect's report (SideReport.EventList) rather
// than parsing the stream again, so "client event 282" in a finding is row
// e282 of the timeline.
//
// # Large captures and live captures
//
// A capture is not decoded when opened. A byte scan (8 MiB per command)
// indexes every line: its exchange and kind from the line's first bytes as
// the tape encoder writes them (gjson for any other layout), the request's
// method, URL and model, statuses, outcomes and first-chunk times. That is
// all the list needs; a 100 MB capture indexes in well under a second
// (BenchmarkOpenLargeCapture). An exchange is decoded from its indexed lines
// with the tape decoder, and inspected, only in a tea.Cmd: when opened, and
// one at a time in the background for the list's findings badges; the same
// command describes each event for the timeline, parses and indents the
// request body and splits the assembled text into lines. Update and View
// never read files or parse JSON or SSE: they only style what the commands
// prepared, and a badge re-filters the list only when the sort or the
// filter reads badges.
//
// With Options.Follow the files are re-scanned from their indexed end every
// 250 ms; new exchanges appear, and the open one is decoded again when it
// grew, its timeline and assembled text kept at their ends while it
// streams. Options.Stream reads a capture from any reader the same way
// (for "seam record --tui").
//
// A directory in Options.Paths stands for its *.ndjson and *.ndjson.zst
// files, sorted by name. A compressed capture is decompressed into memory
// as a stream (and, when followed, read on as the recorder flushes it)
// instead of being read in place. With Follow each tick also lists the
// directories given (one readdir each, in a command; never their
// subdirectories) and opens the capture files not seen before, so every
// run "seam record -o DIR/"
// starts shows up: its exchanges join the list like those of a growing
// file, the new capture ordered among the directory's others by name. A
// file that is deleted or renamed stays loaded (its descriptor stays open),
// and one renamed within the directory is recognised and not opened twice.
// A followed directory may start empty; the list then says it is waiting
// for captures in it.
//
// # Sessions and the filter
//
// The background inspection links the exchanges of every capture into
// sessions with one inspect.Sessions, in the order they are badged (each
// capture's exchanges in file order); only the badge command, one at a
// time, touches it. t groups the list session by session in turn order
// (each session where its first row stands in the sort), space folds a
// session to its first turn, and T opens the session view: every turn in
// order with its findings (the first 20 of each) and the session's totals,
// added up from the badges. A grouped list is regrouped at most every
// 200 ms while badges arrive.
//
// The filter (f) is inspect's filter language (seam help where). Its free
// words and text terms search what query.SearchText returns of each
// exchange (assembled text, tool calls, request messages, headers), kept
// with the badge up to 64 KiB per exchange.
//
// # Colour
//
// Styles come from lipgloss.LightDark after the terminal reports its
// background. Meaning never rests on colour: diff lines have +/- gutters,
// changed bytes are underlined (added) or struck through (deleted), the
// active tab is bracketed, badges carry letters (E, W, I) and invisible
// characters are drawn as visible markers (␍ ⇥ · ⟨U+200B⟩ ⟨\xNN⟩).
//
// # Hostile input
//
// Captures come from strangers. Every string drawn from a capture or a
// stream (list columns, titles, request, headers, findings, event names,
// bodies, chunks, errors quoting them) goes through package visible, so a
// control sequence, bidi override or zero-width character is drawn as a
// marker (␛, ⟨U+202E⟩) and never acts on the terminal; as a last line of
// defence each frame is checked before it is drawn, and any escape other
// than the styling's own SGR sequences, and any control, bidi or format
// character left, is drawn as a marker.
package tui
