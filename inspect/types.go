package inspect

import (
	"fmt"
	"strings"

	"github.com/seam-dev/seam/tape"
)

// Severity ranks a finding. The zero value is Info.
type Severity int

// Severities, from least to most serious.
const (
	// Info is a fact worth knowing that breaks nothing by itself.
	Info Severity = iota
	// Warn is a departure that breaks some clients or hides a problem.
	Warn
	// Error is a defect: some client ends up with a wrong message.
	Error
)

// String returns "info", "warn" or "error".
func (s Severity) String() string {
	switch s {
	case Warn:
		return "warn"
	case Error:
		return "error"
	default:
		return "info"
	}
}

// MarshalText encodes the severity as its name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText decodes a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseSeverity parses "info", "warn" (or "warning") and "error".
func ParseSeverity(name string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "info":
		return Info, nil
	case "warn", "warning":
		return Warn, nil
	case "error":
		return Error, nil
	}
	return Info, fmt.Errorf("unknown severity %q (want info, warn or error)", name)
}

// Pointer says where in a capture something happened. Event, Chunk and Off
// are -1 when they do not apply (a request-level finding, for instance).
type Pointer struct {
	// Ex is the exchange number (from 1).
	Ex int `json:"ex"`
	// Side is the response side, empty for request-level findings.
	Side tape.Side `json:"side,omitempty"`
	// Event is the index of the event in that side's event list.
	Event int `json:"event"`
	// Chunk is the index of the chunk holding the event's first byte.
	Chunk int `json:"chunk"`
	// Off is the byte offset of the event's first byte in the side's body.
	Off int64 `json:"off"`
	// T is the time (ns since capture start) of the chunk that completed the event.
	T int64 `json:"t"`
}

// String renders the pointer the way the text report prints it.
func (p Pointer) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ex %d", p.Ex)
	if p.Side != "" {
		fmt.Fprintf(&b, " %s", p.Side)
	}
	if p.Event >= 0 {
		fmt.Fprintf(&b, " event %d (chunk %d, byte %d, t=%s)", p.Event, p.Chunk, p.Off, FormatDuration(p.T))
	}
	return b.String()
}

// Finding is one thing a detector noticed.
type Finding struct {
	// ID is the detector's stable id, e.g. "xml.unclosed-closer".
	ID string `json:"id"`
	// Severity is the detector's severity.
	Severity Severity `json:"severity"`
	// Message is a one-line description.
	Message string `json:"message"`
	// Pointer says where it happened.
	Pointer Pointer `json:"at"`
	// Evidence is a short excerpt of the bytes or text that prove it.
	Evidence string `json:"evidence,omitempty"`
}

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

	// spans maps byte ranges of Text back to the events that added them.
	spans []span
}

// span says that the bytes of a text from At on were added by event Event.
type span struct {
	At    int
	Event int
}

// eventAt returns the event that added byte at of a text with the given spans,
// or -1.
func eventAt(spans []span, at int) int {
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

// Choice0 returns the first choice, creating it when the message has none.
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

// FormatDuration renders a duration in nanoseconds compactly, as reports
// and the TUI show it: microseconds below a millisecond, milliseconds with
// one decimal below a second, else seconds with two; "-" when negative
// (unknown).
func FormatDuration(ns int64) string {
	switch {
	case ns < 0:
		return "-"
	case ns < 1e6:
		return fmt.Sprintf("%dµs", ns/1e3)
	case ns < 1e9:
		return fmt.Sprintf("%.1fms", float64(ns)/1e6)
	default:
		return fmt.Sprintf("%.2fs", float64(ns)/1e9)
	}
}
