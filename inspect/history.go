package inspect

import (
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/protocol"
)

// histMsg is one message of a conversation history as sessions compare
// them: a fingerprint of what the message says, and enough to name it in a
// finding.
type histMsg struct {
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

// historyOf returns the messages of a request's history in order. A
// Responses input list counts item by item (each function call and each
// result on its own), as its replies do: a history that leaves out a
// result between two calls must not read as one message calling both.
func historyOf(ri *requestInfo) []histMsg {
	if ri == nil {
		return nil
	}
	msgs := ri.messages
	if ri.items != nil {
		msgs = ri.items
	}
	out := make([]histMsg, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, newHistMsg(m.role, m.text, m.toolCalls, m.toolCallID))
	}
	return out
}

// replyOf returns the assistant message a response gave (its first
// choice), as the next request carries it back: one message, or for
// Responses one per output item (the text, then each call). It is empty
// when the response holds no text and no tool call.
func replyOf(m *protocol.Message) []histMsg {
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
		return []histMsg{newHistMsg("assistant", ch.Text, ch.ToolCalls, "")}
	}
	var out []histMsg
	if strings.TrimSpace(ch.Text) != "" {
		out = append(out, newHistMsg("assistant", ch.Text, nil, ""))
	}
	for _, c := range ch.ToolCalls {
		out = append(out, newHistMsg("assistant", "", []protocol.ToolCall{c}, ""))
	}
	return out
}

func newHistMsg(role, text string, calls []protocol.ToolCall, callID string) histMsg {
	role = safeName(strings.ToLower(role))
	if role == "developer" {
		role = "system" // the same instructions, under the name newer models use
	}
	text = strings.TrimSpace(text)
	h := fnv.New64a()
	w := func(s string) {
		h.Write([]byte(s))
		h.Write([]byte{0})
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
	m := histMsg{hash: h.Sum64(), role: strings.Clone(role), text: strings.Clone(excerpt.Clip(text, 80))}
	switch {
	case callID != "":
		m.what = "tool result for " + safeName(callID) // a concatenation: a new string
	case len(calls) > 0:
		names := make([]string, len(calls))
		for i, c := range calls {
			names[i] = safeName(c.Name)
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
	if v, ok := decodeJSON(s); ok {
		return encodeJSON(v)
	}
	return s
}

// firstTurn returns how many messages of h a request must share with an
// earlier one to continue its conversation: the system messages and the
// first message after them. It is len(h)+1 when h has no other message.
func firstTurn(h []histMsg) int {
	for i, m := range h {
		if m.role != "system" {
			return i + 1
		}
	}
	return len(h) + 1
}

// describe names message i of a history in a finding: "message 5 (tool
// result for call_1)".
func (m histMsg) describe(i int) string {
	return "message " + strconv.Itoa(i) + " (" + m.what + ")"
}

// safeName returns a role, tool name or call id from a capture as it may
// appear in a finding's message (excerpt.Name).
func safeName(s string) string { return excerpt.Name(s) }
