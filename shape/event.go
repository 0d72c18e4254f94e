package shape

// Kind says what a normalized [Event] carries.
type Kind uint8

// The normalized event kinds. Every upstream protocol is decoded into these,
// and every client protocol is encoded from them.
const (
	// KindOpaque is an upstream event the decoder does not understand (or an SSE
	// comment); it is forwarded as it came, never dropped.
	KindOpaque Kind = iota
	// KindRole announces the speaker of a choice (Text holds the role).
	KindRole
	// KindText is an assistant text delta (Text).
	KindText
	// KindReasoning is a reasoning/thinking delta (Text).
	KindReasoning
	// KindToolStart opens a structured tool call (Index, ID, Name).
	KindToolStart
	// KindToolArgs is a piece of a tool call's JSON arguments (Index, Text).
	KindToolArgs
	// KindToolEnd closes a structured tool call (Index).
	KindToolEnd
	// KindFinish ends a choice (Text holds the reason in Chat Completions
	// vocabulary: stop, length, tool_calls, content_filter, or as received).
	KindFinish
	// KindUsage carries token usage (Raw holds the protocol's usage JSON).
	KindUsage
	// KindError is an in-stream error (Raw holds the error JSON object).
	KindError
	// KindDone is the stream's terminal event.
	KindDone
	// KindRefusal is a refusal delta (Text): Chat Completions
	// delta.refusal, a Responses refusal part.
	KindRefusal
)

// String returns the kind's name, e.g. "text" or "tool-start".
func (k Kind) String() string {
	names := [...]string{"opaque", "role", "text", "reasoning", "tool-start", "tool-args", "tool-end", "finish", "usage", "error", "done", "refusal"}
	if int(k) < len(names) {
		return names[k]
	}
	return "unknown"
}

// Event is one normalized stream event for one choice.
type Event struct {
	Kind   Kind
	Choice int    // choice index (0 for protocols without choices)
	Index  int    // tool call index within the choice
	ID     string // tool call id (KindToolStart)
	Name   string // tool name (KindToolStart)
	Text   string // role, text, reasoning, argument delta or finish reason
	Raw    string // usage or error JSON; the data of an opaque event
	// Type and EventID are the SSE event name and id of an opaque event.
	Type, EventID string
	// Comment marks an opaque event that was an SSE comment (Raw is its text).
	Comment bool
	// Lost names, for an opaque event, the content it carries that the
	// engine does not model (e.g. "delta.audio"), or is "" when it carries
	// nothing a client shows. An encoder for another protocol than the
	// upstream's cannot forward such an event as it came.
	Lost string
}

// Meta is what a decoder learns about the response as a whole and what an
// encoder needs to stamp on every event it writes.
type Meta struct {
	ID      string // response id as sent upstream (chatcmpl-…, resp_…, msg_…)
	Model   string
	Created string // raw JSON number of the creation time ("" if unknown)
	// InputUsage is the raw usage JSON announced at the start of an Anthropic
	// message (message_start), kept so an Anthropic client sees it again.
	InputUsage string
}
