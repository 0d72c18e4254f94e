package session

import (
	"hash/maphash"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/internal/jsonvalue"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/request"
)

// Message is one message of a conversation history as sessions compare
// them: a fingerprint of what the message says, and enough to name it in a
// Rewrite. History and Reply make them.
type Message struct {
	// hash fingerprints the role, the text (trimmed), each tool call (id,
	// name, arguments as canonical JSON) and the id a tool result answers.
	hash uint64
	role string
	// what names the message in a finding: "tool result for call_1",
	// "assistant call get_weather", "user message".
	what string
	// text is a short excerpt of its content, for evidence.
	text string
}

// History returns the messages of a request's history in order. A
// Responses input list counts item by item (each function call and each
// result on its own), as its replies do: a history that leaves out a
// result between two calls must not read as one message calling both.
func History(ri *request.Request) []Message {
	if ri == nil {
		return nil
	}
	msgs := ri.Messages
	if ri.Items != nil {
		msgs = ri.Items
	}
	out := make([]Message, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, newMessage(m.Role, m.Text, m.ToolCalls, m.ToolCallID))
	}
	return out
}

// Reply returns the assistant message a response gave (its first
// choice), as the next request carries it back: one message, or for
// Responses one per output item (the text, then each call). It is empty
// when the response holds no text and no tool call.
func Reply(m *protocol.Message) []Message {
	if m == nil || len(m.Choices) == 0 {
		return nil
	}
	ch := m.Choices[0]
	for _, c := range m.Choices {
		if c.Index == 0 {
			ch = c
		}
	}
	if strings.TrimSpace(ch.Text) == "" && len(ch.ToolCalls) == 0 {
		return nil
	}
	if m.Protocol != protocol.Responses {
		return []Message{newMessage("assistant", ch.Text, ch.ToolCalls, "")}
	}
	var out []Message
	if strings.TrimSpace(ch.Text) != "" {
		out = append(out, newMessage("assistant", ch.Text, nil, ""))
	}
	for _, c := range ch.ToolCalls {
		out = append(out, newMessage("assistant", "", []protocol.ToolCall{c}, ""))
	}
	return out
}

// messageSeed seeds the fingerprints of messages: they are compared
// within one run only (the tree of histories lives in memory), so any seed
// does. maphash reads strings in place, where FNV took a copy of each as
// bytes and read it a byte at a time (BenchmarkHistory).
var messageSeed = maphash.MakeSeed()

func newMessage(role, text string, calls []protocol.ToolCall, callID string) Message {
	role = excerpt.Name(strings.ToLower(role))
	if role == "developer" {
		role = "system" // the same instructions, under the name newer models use
	}
	text = strings.TrimSpace(text)
	var h maphash.Hash
	h.SetSeed(messageSeed)
	w := func(s string) {
		h.WriteString(s)
		h.WriteByte(0)
	}
	w(role)
	w(text)
	for _, c := range calls {
		w(c.ID)
		w(c.Name)
		w(canonicalJSON(c.Arguments))
	}
	w(callID)
	// What a message keeps is cloned: a substring would keep the whole
	// request body it was read from alive as long as the session tree.
	m := Message{hash: h.Sum64(), role: strings.Clone(role), text: strings.Clone(excerpt.Clip(text, 80))}
	switch {
	case callID != "":
		m.what = "tool result for " + excerpt.Name(callID) // a concatenation: a new string
	case len(calls) > 0:
		names := make([]string, len(calls))
		for i, c := range calls {
			names[i] = excerpt.Name(c.Name)
		}
		m.what = role + " message calling " + strings.Join(names, ", ")
		if m.text == "" {
			m.text = excerpt.Clip(calls[0].Name+" "+calls[0].Arguments, 80) // a new string
		}
	default:
		m.what = m.role + " message"
	}
	return m
}

// canonicalJSON returns s with object keys sorted and no insignificant
// space when it is one JSON value (numbers kept as written), "{}" when it
// is empty (a call without arguments, however a protocol writes it), else
// s trimmed.
func canonicalJSON(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "{}"
	}
	if c, ok := jsonvalue.Canonical(s); ok {
		return c
	}
	return s
}

// firstTurn returns how many messages of h a request must share with an
// earlier one to continue its conversation: the system messages and the
// first message after them. It is len(h)+1 when h has no other message.
func firstTurn(h []Message) int {
	for i, m := range h {
		if m.role != "system" {
			return i + 1
		}
	}
	return len(h) + 1
}

// describe names message i of a history in a Rewrite: "message 5 (tool
// result for call_1)".
func (m Message) describe(i int) string {
	return "message " + strconv.Itoa(i) + " (" + m.what + ")"
}
