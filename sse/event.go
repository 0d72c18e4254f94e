package sse

import "strings"

// Event is one dispatched event plus where it came from in the stream.
type Event struct {
	// Type is the value of the block's last "event" field, or "" when the
	// block had none. Consumers treat "" as "message".
	Type string
	// Data is the block's data lines joined with "\n", without a trailing
	// "\n". Bytes that are not valid UTF-8 are kept as they were received.
	Data string
	// ID is the last-event-ID buffer after this block. Per WHATWG it persists
	// across events until another "id" field changes it; an "id" field whose
	// value contains NUL is ignored, and an empty "id" field resets it to "".
	ID string
	// Retry is the value in milliseconds of a valid "retry" field in this
	// block, or -1 when the block had none. Values that overflow int are
	// clamped to the largest int.
	Retry int
	// Start is the byte offset in the whole stream (a leading BOM counted) of
	// the first byte of the block's first non-blank line, comments included.
	Start int64
	// End is the offset just past the line terminator of the blank line that
	// dispatched the event. For the unterminated final event it is the
	// length of the stream.
	End int64
	// Terminated is false for the final event when the stream ended before
	// the blank line that would have dispatched it. The WHATWG algorithm
	// discards such an event; this package reports it so that truncation is
	// visible.
	Terminated bool
	// Quirks records the departures from the common form seen in the block.
	Quirks Quirk
}

// Quirk is a bit set of spec departures and oddities seen while parsing one
// event block. None of them but QuirkTooLong changes how the event was
// parsed (the WHATWG rules are always applied); they are evidence of what a
// less faithful client might have done differently.
type Quirk uint32

// The quirks recorded by the Parser.
const (
	// QuirkNoSpace: a field had a non-empty value not preceded by a space,
	// as in "data:x". Valid, but clients that strip "data: " miss it.
	QuirkNoSpace Quirk = 1 << iota
	// QuirkExtraSpace: a field value still began with a space after the one
	// leading space was removed, as in "data:  x". Clients that trim all
	// whitespace see a different value.
	QuirkExtraSpace
	// QuirkNoColon: a field line had no colon, as in "data"; the whole line
	// is the field name and the value is "".
	QuirkNoColon
	// QuirkCR: a line of the block (the dispatching blank line included)
	// ended with a bare CR. bufio.ScanLines based clients do not split there.
	QuirkCR
	// QuirkCRLF: a line of the block ended with CRLF.
	QuirkCRLF
	// QuirkMixedEndings: the block used a line-ending kind other than the
	// first kind seen in the stream, or more than one kind.
	QuirkMixedEndings
	// QuirkBOM: the stream started with a UTF-8 BOM, which was skipped. Set
	// on the first dispatched event.
	QuirkBOM
	// QuirkStrayBOM: a line other than the first began with U+FEFF. The
	// spec makes it part of the field name (so the field is unknown); some
	// clients decode each line separately and drop it.
	QuirkStrayBOM
	// QuirkUnknownField: the block had a field other than data, event, id
	// and retry (names are case-sensitive); it was ignored.
	QuirkUnknownField
	// QuirkComment: the block had a comment line (one starting with ':').
	QuirkComment
	// QuirkMultiLineData: the block had more than one data field, so Data
	// contains "\n". Line-based clients parse each line alone.
	QuirkMultiLineData
	// QuirkDuplicateField: the block set event or id more than once; the
	// last value wins.
	QuirkDuplicateField
	// QuirkBadRetry: a retry field was not all ASCII digits (or was empty)
	// and was ignored.
	QuirkBadRetry
	// QuirkNULInID: an id field contained NUL and was ignored.
	QuirkNULInID
	// QuirkInvalidUTF8: the block contained bytes that are not valid UTF-8.
	// They are kept raw (see the package documentation).
	QuirkInvalidUTF8
	// QuirkSkippedBlock: since the previous dispatched event, at least one
	// block with an event, id or retry field but no data field ended and
	// was not dispatched, as the spec requires. Some clients dispatch such
	// blocks (openai-python, anthropic-sdk-python, go-sse).
	QuirkSkippedBlock
	// QuirkTooLong: a line of the block, or the block's data, was longer
	// than the Parser's cap (MaxLine): only the bytes up to the cap were
	// kept. The only quirk that changes what was parsed.
	QuirkTooLong

	quirkEnd
)

var quirkNames = [...]string{
	"no-space", "extra-space", "no-colon", "cr", "crlf", "mixed-endings",
	"bom", "stray-bom", "unknown-field", "comment", "multi-line-data",
	"duplicate-field", "bad-retry", "nul-in-id", "invalid-utf8", "skipped-block",
	"too-long",
}

// String returns the names of the quirks in q joined with "|", or "" when q
// is empty. Unknown bits are shown as "0x..." values.
func (q Quirk) String() string {
	var b strings.Builder
	for i, name := range quirkNames {
		if q&(1<<i) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('|')
		}
		b.WriteString(name)
	}
	if rest := q &^ (quirkEnd - 1); rest != 0 {
		if b.Len() > 0 {
			b.WriteByte('|')
		}
		b.WriteString("0x")
		const hex = "0123456789abcdef"
		var buf [8]byte
		n := len(buf)
		for v := uint32(rest); v != 0; v >>= 4 {
			n--
			buf[n] = hex[v&0xf]
		}
		b.Write(buf[n:])
	}
	return b.String()
}
