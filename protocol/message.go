package protocol

import (
	"cmp"
	"slices"
	"strings"
)

// Usage is token accounting as the stream reports it (zero when absent).
type Usage struct {
	Input         int `json:"input"`
	Output        int `json:"output"`
	Total         int `json:"total,omitempty"`
	Reasoning     int `json:"reasoning,omitempty"`
	CacheRead     int `json:"cache_read,omitempty"`
	CacheCreation int `json:"cache_creation,omitempty"`
}

// ToolCall is one assembled tool call.
type ToolCall struct {
	// Index is the Chat Completions tool index, the Responses output_index, or
	// the Anthropic block index.
	Index int `json:"index"`
	// ID is the call id (Responses: call_id).
	ID string `json:"id,omitempty"`
	// Name is the function name.
	Name string `json:"name"`
	// Arguments is the raw joined arguments string.
	Arguments string `json:"arguments"`
	// Custom marks a Responses custom tool call, whose Arguments is its
	// free-form input text rather than JSON.
	Custom bool `json:"custom,omitempty"`
	// Born is the events that opened the call and last added to it.
	Born Born `json:"-"`
	// Signature is the Gemini thoughtSignature of the part carrying the
	// call, byte for byte: the model needs it back on the next turn.
	Signature string `json:"signature,omitempty"`
}

// ServerTool is one call of a tool the provider runs itself (Anthropic's
// server_tool_use, the Responses API's web_search_call, file_search_call,
// code_interpreter_call, image_generation_call and mcp_call items,
// Bedrock's server_tool_use such as nova_grounding): the provider ran it
// and answered from its result within the same response, so the client has
// nothing to answer. It is kept apart from ToolCalls, which are the calls
// the client must run.
type ServerTool struct {
	// Index is the Anthropic or Bedrock block index, or the Responses
	// output_index.
	Index int `json:"index"`
	// ID is the call's id (Anthropic srvtoolu_…, Responses ws_…).
	ID string `json:"id,omitempty"`
	// Name is the tool: web_search, code_execution, file_search,
	// code_interpreter, nova_grounding, or an MCP tool's name.
	Name string `json:"name"`
	// Input is what the call was given as the stream carried it (the
	// joined input JSON, the Responses item's query or code), "" when none.
	Input string `json:"input,omitempty"`
	// Result names what the provider returned for it (the result block's
	// type, or the Responses item's status), "" when the stream has none.
	Result string `json:"result,omitempty"`
	// Born is the events that opened the call and last added to it.
	Born Born `json:"-"`
}

// Choice is one assembled choice (Chat Completions), candidate (Gemini), or
// the single output of the other protocols. Reasoning is the model's
// thinking in the protocol's own channel (reasoning_content, else
// reasoning, else the reasoning_details text for Chat; thought parts for
// Gemini; thinking blocks; Cohere's tool plan).
type Choice struct {
	Index     int        `json:"index"`
	Role      string     `json:"role,omitempty"`
	Text      string     `json:"text"`
	Reasoning string     `json:"reasoning,omitempty"`
	Refusal   string     `json:"refusal,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ServerTools are the tools the provider ran itself in this answer:
	// shown, never counted as calls the client must answer.
	ServerTools  []ServerTool `json:"server_tools,omitempty"`
	FinishReason string       `json:"finish_reason,omitempty"`
	// Signature is the signature of the reasoning (Anthropic
	// signature_delta, Bedrock reasoningContent.signature, Gemini
	// thoughtSignature on a part other than a function call), when sent.
	Signature string `json:"signature,omitempty"`
	// ReasoningDetails is OpenRouter's reasoning_details items, every item
	// of every delta in order, as one JSON array (they go back unchanged on
	// the next turn).
	ReasoningDetails string `json:"reasoning_details,omitempty"`

	// Spans maps byte ranges of Text back to the events that added them.
	Spans []Span `json:"-"`
	// ReasoningBorn, RefusalBorn and FinishBorn are the events that added
	// to Reasoning and Refusal and that set FinishReason.
	ReasoningBorn, RefusalBorn, FinishBorn Born `json:"-"`
}

// Born says which events made one part of an assembled message: the first
// that added to it and the last. Its zero value means unknown (a part the
// assembler does not track, or a non-stream body, which has no events), so
// an assembler that does not track a part need not set anything.
type Born struct {
	first, last int // event index + 1; 0 when unknown
}

// Add records that event ev added to the part; a negative ev is ignored.
func (b *Born) Add(ev int) {
	if ev < 0 {
		return
	}
	if b.first == 0 {
		b.first = ev + 1
	}
	b.last = ev + 1
}

// First returns the first event that added to the part, or -1 when unknown.
func (b Born) First() int { return b.first - 1 }

// Last returns the last event that added to the part, or -1 when unknown.
func (b Born) Last() int { return b.last - 1 }

// mapped returns b with its events renumbered by f (an inner stream's
// events to the frames that carried them).
func (b Born) mapped(f func(int) int) Born {
	var n Born
	if b.first > 0 {
		n.Add(f(b.First()))
		n.Add(f(b.Last()))
	}
	return n
}

// join records that the events of o added to the part too.
func (b *Born) join(o Born) {
	if o.first > 0 {
		b.Add(o.First())
		b.Add(o.Last())
	}
}

// Span says that the bytes of a text from At on were added by event
// Event (until the next span's At).
type Span struct {
	At    int
	Event int
}

// spanText is a text joined from the events that added to it, with the
// spans that map its bytes back to them.
type spanText struct {
	b     strings.Builder
	spans []Span
}

// add appends s, added by event ev.
func (t *spanText) add(s string, ev int) {
	if s == "" {
		return
	}
	t.spans = append(t.spans, Span{At: t.b.Len(), Event: ev})
	t.b.WriteString(s)
}

// join appends o, a part of the text, with its spans.
func (t *spanText) join(o *spanText) {
	for _, s := range o.spans {
		t.spans = append(t.spans, Span{At: t.b.Len() + s.At, Event: s.Event})
	}
	t.b.WriteString(o.b.String())
}

// String returns the text.
func (t *spanText) String() string { return t.b.String() }

// EventAt returns the event that added byte at of a text with the given spans,
// or -1.
func EventAt(spans []Span, at int) int {
	lo, hi := 0, len(spans)
	for lo < hi {
		m := (lo + hi) / 2
		if spans[m].At <= at {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return -1
	}
	return spans[lo-1].Event
}

// Message is the assembled result of one side's stream.
type Message struct {
	Protocol Protocol `json:"protocol"`
	ID       string   `json:"id,omitempty"`
	Model    string   `json:"model,omitempty"`
	Choices  []Choice `json:"choices"`
	Usage    *Usage   `json:"usage,omitempty"`
	// Status is the terminal status the stream claims (Responses status,
	// "done" for [DONE] or message_stop), empty when no terminal event came.
	Status string `json:"status,omitempty"`
	// Error is the error the stream carried, if any.
	Error string `json:"error,omitempty"`
	// UsageBorn and ErrorBorn are the events that carried Usage and Error.
	UsageBorn, ErrorBorn Born `json:"-"`
	// Final is the finished output the stream itself claims, when it has one
	// (Responses response.completed, or a non-stream JSON body).
	Final *Message `json:"final,omitempty"`
}

// choice returns the choice with index i, creating it when the message has
// none.
func (m *Message) choice(i int) *Choice {
	for k := range m.Choices {
		if m.Choices[k].Index == i {
			return &m.Choices[k]
		}
	}
	m.Choices = append(m.Choices, Choice{Index: i})
	return &m.Choices[len(m.Choices)-1]
}

// choiceFinder finds a message's choices by index through a map, for the
// assemblers whose input names any number of choices: choice's linear
// search would make n distinct indexes cost n² (a hostile stream names a
// new one in every event).
type choiceFinder struct {
	m  *Message
	at map[int]int // choice index → position in m.Choices
}

// get returns the choice with index i, creating it when the message has
// none. The pointer is valid until the next choice is created.
func (f *choiceFinder) get(i int) *Choice {
	if f.at == nil {
		f.at = make(map[int]int, len(f.m.Choices))
		for k, c := range f.m.Choices {
			f.at[c.Index] = k
		}
	}
	k, ok := f.at[i]
	if !ok {
		f.m.Choices = append(f.m.Choices, Choice{Index: i})
		k = len(f.m.Choices) - 1
		f.at[i] = k
	}
	return &f.m.Choices[k]
}

// Text returns the text of the choice with index 0, or "".
func (m *Message) Text() string {
	if m == nil {
		return ""
	}
	for _, c := range m.Choices {
		if c.Index == 0 {
			return c.Text
		}
	}
	return ""
}

// sortChoices orders the message's choices by index.
func sortChoices(m *Message) {
	slices.SortFunc(m.Choices, func(a, b Choice) int { return cmp.Compare(a.Index, b.Index) })
}
