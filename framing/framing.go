package framing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/seam-dev/seam/sse"
)

// Kind names a framing.
type Kind uint8

// The framings. The zero value is Unknown.
const (
	// Unknown is a body whose framing was not told.
	Unknown Kind = iota
	// SSE is a text/event-stream body.
	SSE
	// NDJSON is one JSON text per line (application/x-ndjson).
	NDJSON
	// JSONArray is one JSON array whose elements are the events.
	JSONArray
	// EventStream is AWS event-stream binary messages.
	EventStream
)

var kindNames = [...]string{"unknown", "sse", "ndjson", "json-array", "eventstream"}

// String returns the framing's name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// MarshalText encodes the framing as its name, "" for Unknown.
func (k Kind) MarshalText() ([]byte, error) {
	if k == Unknown {
		return nil, nil
	}
	return []byte(k.String()), nil
}

// ContentType returns the media type a body of this framing is served
// with, "" for Unknown. A JSON array stream is served as application/json.
func (k Kind) ContentType() string {
	switch k {
	case SSE:
		return "text/event-stream"
	case NDJSON:
		return "application/x-ndjson"
	case JSONArray:
		return "application/json"
	case EventStream:
		return "application/vnd.amazon.eventstream"
	}
	return ""
}

// FromContentType tells the framing a Content-Type header value declares.
// application/json declares no stream framing (a single document, or a
// JSON array stream told only by its bytes): it gives Unknown.
func FromContentType(ct string) Kind {
	// The media type is what comes before any parameter (no
	// mime.ParseMediaType: this runs per response on the proxy's path).
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	switch mt {
	case "text/event-stream":
		return SSE
	case "application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines", "application/jsonlines":
		return NDJSON
	case "application/vnd.amazon.eventstream":
		return EventStream
	}
	return Unknown
}

// Sniff tells the framing from the first bytes of a body: an event-stream
// prelude whose CRC holds, a JSON array ('[' first), JSON lines ('{'
// first), and anything else is SSE. It returns Unknown for an empty head.
func Sniff(head []byte) Kind {
	if _, _, ok := prelude(head); ok {
		return EventStream
	}
	for _, c := range head {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '[':
			return JSONArray
		case '{':
			return NDJSON
		}
		return SSE
	}
	return Unknown
}

// Choose picks the framing to read a body with from its Content-Type and
// its first bytes. The bytes win when they clearly are another framing
// than the header declares (an event-stream prelude, or JSON where SSE is
// declared), and mismatch then says so: the body is not what its
// Content-Type says. Bytes that look like JSON under a JSON-ish or absent
// Content-Type are no mismatch.
func Choose(contentType string, head []byte) (k Kind, mismatch bool) {
	declared := FromContentType(contentType)
	sniffed := Sniff(head)
	switch {
	case sniffed == Unknown:
		return declared, false
	case declared == Unknown:
		return sniffed, false
	case declared == sniffed:
		return declared, false
	case sniffed == EventStream, declared == SSE && (sniffed == NDJSON || sniffed == JSONArray):
		return sniffed, true
	case declared == EventStream:
		// Not even a prelude: read it as the bytes suggest.
		return sniffed, true
	}
	return declared, false
}

// Frame is one event of a body.
type Frame struct {
	// Name is the SSE event field, or the event-stream :event-type header
	// (:exception-type for an exception message); "" otherwise.
	Name string
	// MessageType is the event-stream :message-type header ("event",
	// "exception" or "error"); "" for the other framings.
	MessageType string
	// headers are an event-stream message's header bytes (a view valid
	// during the emit call, as data is).
	headers []byte
	// Start and End are the offsets of the frame's bytes in the body: the
	// SSE block, the NDJSON line (without its line ending), the array
	// element, or the whole event-stream message.
	Start, End int64
	// DataOff is the offset of the data's first byte in the body when the
	// data is a run of the body's bytes (NDJSON, JSON array, event-stream
	// payload), and -1 for SSE, whose data is joined from its lines.
	DataOff int64
	// Terminated is false for a last frame the end of the body cut short:
	// an SSE block without its blank line, an NDJSON line without its LF,
	// an array element never closed.
	Terminated bool
	// Quirks are the SSE spec departures of the block (SSE only).
	Quirks sse.Quirk
}

// Header returns the string value of the event-stream header name, or ""
// when the message has no such string header. Valid during the emit call.
func (f *Frame) Header(name string) string {
	v := ""
	scanHeaders(f.headers, func(n []byte, typ byte, val []byte) {
		if v == "" && typ == hString && string(n) == name {
			v = string(val)
		}
	})
	return v
}

// Headers returns an event-stream message's headers, in wire order, as the
// AWS SDK's eventstream decoder gives them (a later header of the same name
// replaces an earlier one). Call it during the emit call; the result may be
// kept.
func (f *Frame) Headers() eventstream.Headers {
	var hs eventstream.Headers
	scanHeaders(f.headers, func(n []byte, typ byte, val []byte) {
		hs.Set(string(n), headerValue(typ, val))
	})
	return hs
}

// ProblemKind classifies a Problem.
type ProblemKind uint8

// The problem kinds.
const (
	// Corrupt is bytes the framing cannot read: a bad CRC, a bad header,
	// bytes that are not the framing.
	Corrupt ProblemKind = iota + 1
	// Cut is a body that ends inside a frame.
	Cut
)

// String returns "corrupt" or "cut".
func (k ProblemKind) String() string {
	if k == Cut {
		return "cut"
	}
	return "corrupt"
}

// Problem is bytes of the body a parser could not read as its framing.
type Problem struct {
	Kind ProblemKind
	// Off is the offset of the first unreadable byte; Len how many bytes
	// were skipped from there (0 when not known).
	Off, Len int64
	// Msg says what was wrong.
	Msg string
}

// Emit receives one frame and its data as a view valid only until it
// returns: the SSE data, the NDJSON line, the array element's JSON text,
// or the event-stream payload.
type Emit func(f Frame, data []byte)

// Parser is a push parser for one framing. Feed it the body in any split;
// Close it at the end of the body. A Parser is not safe for concurrent use.
type Parser interface {
	// Feed parses b, the next bytes of the body, emitting each frame they
	// complete.
	Feed(b []byte, emit Emit)
	// Close ends the body, emitting a last frame it cut short (Terminated
	// false) and reporting the cut.
	Close(emit Emit)
}

// MaxFrame is the cap on the bytes of an NDJSON line or a JSON array
// element a parser keeps, the same as the SSE parser's cap on a line
// (sse.MaxLine): a frame longer than it is skipped, and reported as a
// Problem naming the cap, so a body that never ends its line (a
// compression bomb decodes to one) costs at most the cap. An event-stream
// message is capped by its format (MaxMessage).
const MaxFrame = sse.MaxLine

// New returns a parser for kind (SSE for Unknown), reporting what it cannot
// read to onProblem when that is not nil.
func New(kind Kind, onProblem func(Problem)) Parser { return newParser(kind, onProblem, 0) }

// newParser is New with a cap on a frame of limit bytes (0: MaxFrame).
func newParser(kind Kind, onProblem func(Problem), limit int) Parser {
	if onProblem == nil {
		onProblem = func(Problem) {}
	}
	if limit <= 0 {
		limit = MaxFrame
	}
	switch kind {
	case NDJSON:
		return &ndjsonParser{problem: onProblem, limit: limit}
	case JSONArray:
		return &arrayParser{problem: onProblem, limit: limit}
	case EventStream:
		return &eventStreamParser{problem: onProblem}
	}
	return &sseParser{p: sse.Parser{Limit: limit}}
}

// tooLong is the Problem of a frame of n bytes at off longer than the cap.
func tooLong(what string, off, n int64, limit int) Problem {
	return Problem{Kind: Corrupt, Off: off, Len: n, Msg: fmt.Sprintf("%s of %d bytes is longer than seam's cap of %d bytes on a frame: skipped", what, n, limit)}
}

// sseParser adapts sse.Parser to Parser.
type sseParser struct {
	p    sse.Parser
	emit Emit
	fn   func(sse.Event, []byte)
}

func (s *sseParser) Feed(b []byte, emit Emit) {
	s.bind(emit)
	s.p.FeedView(b, s.fn)
}

func (s *sseParser) Close(emit Emit) {
	s.bind(emit)
	s.p.CloseView(s.fn)
}

func (s *sseParser) bind(emit Emit) {
	s.emit = emit
	if s.fn == nil {
		s.fn = func(e sse.Event, data []byte) {
			s.emit(Frame{Name: e.Type, Start: e.Start, End: e.End, DataOff: -1, Terminated: e.Terminated, Quirks: e.Quirks}, data)
		}
	}
}

// TypeOf returns the Content-Type of a body whose recording kept none, told
// by its bytes: an event-stream body, a JSON array stream or a single JSON
// document (application/json), JSON lines (application/x-ndjson), an SSE
// body (its first line an SSE field or comment); "" when the bytes say
// none of these.
func TypeOf(body []byte) string {
	switch Sniff(body) {
	case EventStream:
		return EventStream.ContentType()
	case JSONArray:
		return JSONArray.ContentType()
	case NDJSON:
		if json.Valid(bytes.TrimSpace(body)) {
			return "application/json"
		}
		first, _, _ := bytes.Cut(bytes.TrimSpace(body), []byte("\n"))
		if json.Valid(first) {
			return NDJSON.ContentType()
		}
	case SSE:
		if SSEStart(body) {
			return SSE.ContentType()
		}
	}
	return ""
}

// SSEStart reports whether the first non-blank line of b is an SSE comment
// or one of the fields an event stream carries (data, event, id, retry).
func SSEStart(b []byte) bool {
	for len(b) > 0 {
		i := bytes.IndexAny(b, "\r\n")
		line := b
		if i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if len(line) == 0 {
			continue
		}
		if line[0] == ':' {
			return true
		}
		name, _, _ := bytes.Cut(line, []byte(":"))
		switch string(name) {
		case "data", "event", "id", "retry":
			return true
		}
		return false
	}
	return false
}
