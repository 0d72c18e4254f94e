package otlpexport

import (
	"encoding/json"

	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/request"
)

// part is one part of a message in the GenAI conventions' JSON schema for
// gen_ai.input.messages and gen_ai.output.messages.
type part struct {
	Type      string          `json:"type"`
	Content   string          `json:"content,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Response  string          `json:"response,omitempty"`
}

// message is one message in that schema.
type message struct {
	Role         string `json:"role"`
	Parts        []part `json:"parts"`
	FinishReason string `json:"finish_reason,omitempty"`
}

// arguments returns a tool call's arguments as JSON: the object the call
// carries when it is valid JSON, else the text as a JSON string.
func arguments(raw string) json.RawMessage {
	if raw != "" && json.Valid([]byte(raw)) {
		return json.RawMessage(raw)
	}
	b, _ := json.Marshal(raw)
	return b
}

func callParts(calls []protocol.ToolCall) []part {
	var out []part
	for _, c := range calls {
		out = append(out, part{Type: "tool_call", ID: c.ID, Name: c.Name, Arguments: arguments(c.Arguments)})
	}
	return out
}

// inputMessages returns the request's system instructions and its
// conversation as the conventions' JSON ("" for none).
func inputMessages(r *request.Request) (system, input string) {
	var sys []part
	var msgs []message
	for _, m := range r.Messages {
		switch {
		case m.Role == "system" || m.Role == "developer":
			sys = append(sys, part{Type: "text", Content: m.Text})
			continue
		case m.ToolCallID != "":
			msgs = append(msgs, message{Role: "tool", Parts: []part{{Type: "tool_call_response", ID: m.ToolCallID, Response: m.Text}}})
			continue
		}
		msg := message{Role: m.Role}
		if m.Text != "" {
			msg.Parts = append(msg.Parts, part{Type: "text", Content: m.Text})
		}
		msg.Parts = append(msg.Parts, callParts(m.ToolCalls)...)
		if msg.Parts == nil {
			msg.Parts = []part{}
		}
		msgs = append(msgs, msg)
	}
	return marshal(sys), marshal(msgs)
}

// outputMessages returns what the response said, one message per choice,
// as the conventions' JSON ("" for nothing).
func outputMessages(m *protocol.Message) string {
	if m == nil {
		return ""
	}
	var msgs []message
	for _, c := range m.Choices {
		msg := message{Role: c.Role, FinishReason: c.FinishReason}
		if msg.Role == "" {
			msg.Role = "assistant"
		}
		if c.Reasoning != "" {
			msg.Parts = append(msg.Parts, part{Type: "reasoning", Content: c.Reasoning})
		}
		if c.Text != "" {
			msg.Parts = append(msg.Parts, part{Type: "text", Content: c.Text})
		}
		if c.Refusal != "" {
			msg.Parts = append(msg.Parts, part{Type: "refusal", Content: c.Refusal})
		}
		msg.Parts = append(msg.Parts, callParts(c.ToolCalls)...)
		if msg.Parts == nil {
			msg.Parts = []part{}
		}
		msgs = append(msgs, msg)
	}
	return marshal(msgs)
}

// marshal encodes v, or returns "" for an empty list.
func marshal[T any](v []T) string {
	if len(v) == 0 {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
