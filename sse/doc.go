// Package sse is seam's Server-Sent Events wire codec: a parser that follows
// the WHATWG "Parsing an event stream" and "Interpreting an event stream"
// rules exactly, and an encoder for canonical event blocks.
//
// Parser is a push parser for a proxy's read path: feed it bytes in whatever
// split they arrived (inside a line, a CRLF pair, a UTF-8 rune or the BOM)
// and it emits each dispatched Event. Reader is the pull form over an
// io.Reader. Lines are held up to a cap, MaxLine (16 MiB), and so is an
// event's data: a single 8 MiB data line parses, while a stream that never
// ends its line (a compression bomb decodes to one) costs at most the cap.
// FeedView and CloseView
// hand each event's data over as a byte view valid during the callback, for
// consumers that decode it at once and need no string per event.
//
// # Rules
//
// One leading UTF-8 BOM is skipped. Lines end with CRLF, LF or a lone CR; a
// CR at the end of one Feed followed by an LF at the start of the next is one
// line ending. A blank line dispatches the block. Lines starting with ':' are
// comments (reported through OnComment). Otherwise the field name runs up to
// the first ':' and one leading space of the value is removed; a line
// without ':' is a field with an empty value. "data" appends the value and
// "\n" to the data buffer, "event" sets the type, "id" sets the sticky
// last-event ID unless the value contains NUL, "retry" is accepted only when
// it is all ASCII digits, and other names are ignored (reported through
// OnField). A block whose data buffer is empty is not dispatched (its type
// is discarded).
//
// This package departs from the spec in two deliberate ways. At the end of
// the stream a block with data that was never ended by a blank line is
// reported (Terminated false) instead of being dropped, because seam exists
// to show what happened on the wire. Consumers that want the spec behaviour
// skip such events. And a line longer than the cap keeps only its first
// MaxLine bytes, an event's data only its first MaxLine bytes (the rest of
// the line, or the data lines past the cap, are dropped), and the event is
// marked QuirkTooLong: the spec sets no limit, but a parser on a proxy's
// read path must not hold a line of any length.
//
// # Offsets
//
// Offsets count bytes of the raw stream from 0, a leading BOM included.
// Event.Start is the first byte of the block's first non-blank line
// (comments included); Event.End is just past the terminator of the blank
// line that dispatched it, or the stream length for an unterminated event.
// So stream[Start:End] is the block's exact evidence. Offsets do not depend on
// how the stream was split into Feeds; to guarantee that, a blank line ended
// by a CR that is the last byte of a Feed is dispatched by the next Feed or by
// Close, once it is known whether an LF follows.
//
// # UTF-8
//
// The spec decodes the stream as UTF-8, replacing invalid bytes with U+FFFD.
// This package does not: Type, Data and ID hold the raw bytes of the stream,
// invalid sequences included, and the block is marked QuirkInvalidUTF8. seam
// records evidence, and replacement would lose it (it would also make a rune
// split across reads look different from a rune that was really broken).
// Callers that need the spec's strings decode them as the spec does, one
// U+FFFD per maximal ill-formed subpart (internal/jsstring.Decode, which is
// what a JavaScript client's TextDecoder gives; strings.ToValidUTF8 is not:
// it replaces a whole run).
// Because the line delimiters CR, LF and ':' are ASCII, the field structure is
// the same either way.
//
// # Quirks
//
// Each Event carries a Quirk bit set recording spec-valid oddities and
// departures seen in its block (missing space after the colon, CR or CRLF
// endings, comments, unknown fields, skipped event-only blocks, ...), the
// things on which real clients disagree. Parsing itself never depends on
// them, but for QuirkTooLong, which says the cap cut the event.
//
// # Encoding
//
// AppendEvent writes the canonical form ("event: ", "id: ", "retry: ", one
// "data: " line per line of Data, then a blank line); Encoder does the same
// for a sequence of events, writing "id" lines only when the ID changes.
package sse
