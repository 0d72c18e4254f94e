// Package htmlreport writes inspect's report of a capture as one HTML page
// a person can attach to a bug: the verdict per exchange, the findings with
// their places (side, event, chunk, byte, time), the upstream-vs-client and
// streamed-vs-final diffs as inspect computed them, what each side
// assembles to, the request, and a timing chart of both sides. A WebSocket
// exchange shows its messages both ways in time order and, for an OpenAI
// Realtime session, what the session assembles to; its chart names the
// sides by direction.
//
// # Self-contained
//
// The page loads nothing and runs nothing: the style sheet and the chart
// (SVG) are inline, there is no script, and a Content-Security-Policy meta
// tag forbids every fetch, script and frame, allowing only the page's own
// style sheet by its hash. It adapts to light and dark schemes
// (prefers-color-scheme), fits a laptop screen, and prints one exchange per
// page.
//
// # Untrusted text
//
// Everything from a capture is a stranger's text. The page is rendered
// with html/template, which escapes it for the context it lands in; no
// capture text is written into an attribute, a style or a script. Control
// characters, bidi overrides and isolates, zero-width and other format
// characters, line and paragraph separators and bytes that are not UTF-8
// are drawn as package visible's markers (␛, ␀, ⟨U+202E⟩, ⟨\xFF⟩) in a
// boxed span, the same as in the terminal, so nothing is hidden or
// reordered and two different texts never look the same. The
// request is shown with the capture's redaction applied once more.
//
// # Chart
//
// Per side, the cumulative body bytes against the time since the request,
// as a step line (upstream solid, client dashed); below the plot a lane per
// side with a tick per chunk. A stall, a gap without bytes longer than
// [Options.Stall] (between chunks, or before the end line), is shaded in
// its lane and across the plot. A dashed vertical line marks the event
// where the sides diverge (the first hunk of the upstream-vs-client diff,
// else of a streamed-vs-final diff) and the event of the first finding.
// Paths merge times closer than half a unit (about half a pixel), so a
// side of any number of chunks draws in bounded size.
//
// # Limits and determinism
//
// Long texts are cut (the assembled text at 16 KiB, a request body at
// 64 KiB, a diff at 600 lines, findings at 300 per exchange), each cut
// saying how much it left out. The page holds no time of generation and
// no path but the capture's file name: the same capture and options give
// the same bytes, so the page can be golden-tested.
package htmlreport
