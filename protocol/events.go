package protocol

import (
	"strings"

	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/tape"
)

// Event is one event of a side (an SSE event, an NDJSON line, a JSON array
// element or an event-stream message), mapped back to the chunk it arrived
// in.
type Event struct {
	// Index is the position of the event in the side's event list.
	Index int `json:"index"`
	// Name is the SSE event field ("" when the event had none), or the
	// event-stream :event-type (:exception-type for an exception).
	Name string `json:"name,omitempty"`
	// Data is the event's data.
	Data string `json:"data"`
	// Chunk is the index of the chunk holding the event's first byte.
	Chunk int `json:"chunk"`
	// EndChunk is the index of the chunk that completed the event.
	EndChunk int `json:"end_chunk"`
	// Off and End are the byte offsets of the event in the side's body.
	Off int64 `json:"off"`
	End int64 `json:"end"`
	// T is the time of the chunk that completed the event.
	T int64 `json:"t"`
	// Terminated is false for a last event that no blank line ended: a
	// spec-following client discards it.
	Terminated bool `json:"terminated"`
	// Quirks lists departures from the SSE spec's common form seen in the
	// event's lines (see the sse package).
	Quirks string `json:"quirks,omitempty"`
	// MessageType is an event-stream message's :message-type ("event",
	// "exception" or "error"). For "error", Name is its :error-code and
	// Data its :error-message.
	MessageType string `json:"message_type,omitempty"`
	// Bare marks bytes between SSE events that are no SSE event but a bare
	// JSON value: SSE clients never see them.
	Bare bool `json:"bare,omitempty"`
}

// Comment is one SSE comment line (": text") with the body offset of its
// first byte, the chunk holding it and the time of the chunk that ended it.
type Comment struct {
	Text  string `json:"text"`
	Off   int64  `json:"off"`
	Chunk int    `json:"chunk"`
	T     int64  `json:"t"`
}

// Field is an SSE field line the spec ignores (a name other than data,
// event, id and retry), as "error: failed to decode …": no client hears
// it. Value is cut at MaxFieldValue bytes.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Off   int64  `json:"off"`
	Chunk int    `json:"chunk"`
	T     int64  `json:"t"`
}

// MaxFields is how many ignored field lines a side keeps (FieldsMore
// counts the rest), and MaxFieldValue how many bytes of each value.
const (
	MaxFields     = 50
	MaxFieldValue = 4 << 10
)

// Side is the parsed event list of one side.
type Side struct {
	// Events are the side's events in body order; Comments its comment
	// lines; Fields the field lines the spec ignores (the first
	// MaxFields, FieldsMore counting the rest).
	Events     []Event
	Comments   []Comment
	Fields     []Field
	FieldsMore int
	// Chunks are the side's chunks the events point into.
	Chunks []tape.Chunk
	// Framing is how the body carries its events (framing.Unknown for SSE
	// parsed by ParseSide) and Problems what of it the framing could not
	// read, with body offsets.
	Framing  framing.Kind
	Problems []framing.Problem
	// Body is the side's body as one string when ParseSide built it, else
	// "".
	Body string

	// chat and obj cache the decoded payloads (decode_chat.go,
	// decode_obj.go), filled on first use for the side's protocol.
	chat *ChatSide
	obj  []ObjEvent
	// twin is the other side of the exchange, whose decoded payloads are
	// reused for the leading events whose data is the same.
	twin *Side
	// mirror is set to twin when the side is twin's bytes cut at twin's
	// places (see Mirrors).
	mirror *Side
}

// Mirrors reports whether s was parsed (ParseSide) as t's very bytes, cut
// into chunks at t's offsets, t parsed as SSE: as a pass-through proxy's
// client side is its upstream side. s's events are then t's, but for their
// times (each that of the chunk of s completing it), and anything read
// from the events' data and names alone, an assembly, is t's.
func (s *Side) Mirrors(t *Side) bool { return t != nil && s.mirror == t }

// ChatEvents returns the events decoded as Chat Completions chunks.
func (s *Side) ChatEvents() *ChatSide {
	if s.chat == nil {
		var pre *ChatSide
		if s.twin != nil {
			pre = s.twin.chat
		}
		s.chat = decodeWithTwin(s, pre, pre != nil, decodeChat)
	}
	return s.chat
}

// ObjEvents returns the events decoded as Responses or Anthropic events.
func (s *Side) ObjEvents() []ObjEvent {
	if s.obj == nil {
		var pre []ObjEvent
		if s.twin != nil {
			pre = s.twin.obj
		}
		s.obj = decodeWithTwin(s, pre, pre != nil, decodeObj)
	}
	return s.obj
}

// decodeWithTwin decodes s's events with decode, reusing pre, the payloads
// the twin side decoded (when havePre), for the leading events both sides
// share; when they share every event, pre itself is the result.
func decodeWithTwin[T any](s *Side, pre T, havePre bool, decode func(events []Event, from T, k int) T) T {
	k := 0
	if havePre {
		k = s.sharedPrefix(s.twin)
	}
	if k > 0 && k == len(s.Events) && k == len(s.twin.Events) {
		return pre
	}
	return decode(s.Events, pre, k)
}

// sharedPrefix returns how many leading events s and t have with the same
// data: the payloads decoded for t (read-only once decoded) serve s for
// those.
func (s *Side) sharedPrefix(t *Side) int {
	n := min(len(s.Events), len(t.Events))
	for i := 0; i < n; i++ {
		if s.Events[i].Data != t.Events[i].Data {
			return i
		}
	}
	return n
}

// IsDone reports whether data is the Chat Completions terminator.
func IsDone(data string) bool { return strings.TrimSpace(data) == "[DONE]" }
