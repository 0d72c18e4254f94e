package protocol

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
}

// Choice is one assembled choice (Chat Completions) or the single output of
// a Responses or Anthropic stream.
type Choice struct {
	Index        int        `json:"index"`
	Role         string     `json:"role,omitempty"`
	Text         string     `json:"text"`
	Reasoning    string     `json:"reasoning,omitempty"`
	Refusal      string     `json:"refusal,omitempty"`
	ToolCalls    []ToolCall `json:"tool_calls,omitempty"`
	FinishReason string     `json:"finish_reason,omitempty"`

	// Spans maps byte ranges of Text back to the events that added them.
	Spans []Span `json:"-"`
}

// Span says that the bytes of a text from At on were added by event
// Event (until the next span's At).
type Span struct {
	At    int
	Event int
}

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
