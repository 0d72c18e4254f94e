package inspect

import (
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
)

// RequestMessage is one message of a captured request, as inspect reads
// Chat Completions, Responses and Anthropic bodies: its role, its text and
// the tool calls it carries (an Anthropic tool result is a message of role
// "tool").
type RequestMessage struct {
	Role      string
	Text      string
	ToolCalls []protocol.ToolCall
}

// RequestMessages returns the messages of x's request as rep read them,
// reading the body again for a report that did not keep them; none for an
// exchange without a request or a body of another shape.
func RequestMessages(x *tape.Exchange, rep *ExchangeReport) []RequestMessage {
	if x.Request == nil {
		return nil
	}
	ri := rep.req
	if ri == nil {
		ri = parseRequest(x.Request.Body)
	}
	out := make([]RequestMessage, len(ri.messages))
	for i, m := range ri.messages {
		out[i] = RequestMessage{Role: m.role, Text: m.text, ToolCalls: m.toolCalls}
	}
	return out
}
