package clients

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/protocol"
)

// nodeChat emulates openai-node 7's ChatCompletionStream (read and run at
// 7.57.0: src/core/streaming.ts Stream.fromSSEResponse,
// src/lib/ChatCompletionStream.ts) over the first n events (the
// unterminated last event is not dispatched). The stream stops at data
// exactly [DONE]; data that is not JSON throws a SyntaxError; an SSE event
// named error, or a payload with a truthy "error", throws APIError (so an
// OpenAI-compatible gateway's {"error": …} chunk on a 200 fails the call
// there, whatever else the chunk says); a chunk without a choices array
// throws. Choices are keyed by index and tool calls by index into a sparse
// array, each index a safe integer in [0, 128) or an OpenAIError; content
// and refusal joined (also beside tool_calls), id and name overwritten,
// arguments joined. Finalising throws on a choice without finish_reason or
// role, and a hole in the tool_calls array fails normalizeToolCallIds.
func nodeChat(se *protocol.Side, n int) Result {
	nr := nodeChatReader{r: Result{Client: OpenAINode, Rule: "openai-node 7 ChatCompletionStream: tool calls keyed by index (0–127), name/id overwritten, an error payload throws"}}
	events := se.Events[:n]
	var cs *protocol.ChatSide
	if n > 0 {
		cs = se.ChatEvents()
	}
	for i := range events {
		e, ck := &events[i], cs.Chunk(i)
		if e.Bare {
			continue // not an SSE event: the client never sees it
		}
		if e.Data == "[DONE]" {
			break
		}
		if err := nr.event(e, cs, ck); err != "" {
			return nr.fail(err)
		}
	}
	return nr.result(n)
}

// nodeChatReader is what openai-node's ChatCompletionStream holds while it
// reads a stream: at most maxNodeIndex calls, by index. The index is
// checked before anything is kept, so a hostile one costs nothing.
type nodeChatReader struct {
	r             Result
	calls         [maxNodeIndex]*protocol.ToolCall
	args          [maxNodeIndex]strings.Builder
	text, refusal strings.Builder
	role          bool
}

// event reads one dispatched event, decoded as ck, and returns the error
// it throws ("" when it throws none).
func (nr *nodeChatReader) event(e *protocol.Event, cs *protocol.ChatSide, ck *protocol.ChatChunk) string {
	if !ck.Valid {
		return "SyntaxError: Error reading response: malformed server-sent event JSON."
	}
	if strings.HasPrefix(e.Name, "thread.") {
		// Yielded as {event, data}, which has no choices.
		return "OpenAIError: chunk.choices is not iterable"
	}
	if e.Name == "error" {
		errv := ck.Err
		if !errv.Exists() || errv.IsNull() {
			return "APIError: " + nodeErrorMessage(protocol.JSONValue(e.Data))
		}
		return "APIError: " + nodeErrorMessage(errv)
	}
	if jsTruthy(ck.Err) {
		return "APIError: " + nodeErrorMessage(ck.Err)
	}
	if !ck.ChoicesArray {
		return "OpenAIError: chunk.choices is not iterable"
	}
	deltas := cs.ChoiceDeltas(ck)
	for k := range deltas {
		d := &deltas[k]
		if d.Index < 0 || d.Index >= maxNodeIndex {
			return "OpenAIError: Chat completion stream contains an invalid choice index: " + strconv.Itoa(d.Index)
		}
		if d.Index != 0 {
			continue
		}
		if err := nr.delta(cs, d); err != "" {
			return err
		}
	}
	return ""
}

// delta adds choice 0's delta d and returns the error a tool call index
// throws ("" when none does).
func (nr *nodeChatReader) delta(cs *protocol.ChatSide, d *protocol.ChatDelta) string {
	if d.Role != "" {
		nr.role = true
	}
	nr.text.WriteString(d.Content().Str())
	nr.refusal.WriteString(d.Refusal().Str())
	for _, tc := range cs.ToolDeltas(d) {
		i := tc.Index
		if !tc.HasIndex {
			return "OpenAIError: Chat completion stream contains an invalid tool call index: undefined"
		}
		if i < 0 || i >= maxNodeIndex {
			return "OpenAIError: Chat completion stream contains an invalid tool call index: " + strconv.Itoa(i)
		}
		if nr.calls[i] == nil {
			nr.calls[i] = &protocol.ToolCall{Index: i}
		}
		if tc.ID != "" {
			nr.calls[i].ID = tc.ID
		}
		if tc.Name != "" {
			nr.calls[i].Name = tc.Name
		}
		nr.args[i].WriteString(tc.Args.Str())
	}
	if fr := d.FinishReason; fr != "" {
		nr.r.FinishReason = fr
	}
	return ""
}

// fail is the result of a stream that threw err: the text so far, no
// tool calls.
func (nr *nodeChatReader) fail(err string) Result {
	r := nr.r
	r.Text, r.Refusal, r.Error = nr.text.String(), nr.refusal.String(), err
	return r
}

// result finalises the completion of a stream of n events, which throws
// on a choice without finish_reason or role and on a hole in the
// tool_calls array.
func (nr *nodeChatReader) result(n int) Result {
	r := nr.r
	r.Text, r.Refusal = nr.text.String(), nr.refusal.String()
	last := -1 // the sparse array's length - 1
	for i, c := range nr.calls {
		if c != nil {
			c.Arguments = nr.args[i].String()
			r.ToolCalls = append(r.ToolCalls, *c)
			last = i
		}
	}
	switch {
	case n > 0 && r.FinishReason == "":
		r.Error = "OpenAIError: missing finish_reason for choice 0"
	case n > 0 && !nr.role:
		r.Error = "OpenAIError: missing role for choice 0"
	case len(r.ToolCalls) > 0 && len(r.ToolCalls) != last+1:
		// normalizeToolCallIds reads .id of each entry, holes included.
		r.Error = "OpenAIError: Cannot read properties of undefined (reading 'id') (tool_calls has holes: " +
			strconv.Itoa(last+1-len(r.ToolCalls)) + " of " + strconv.Itoa(last+1) + " entries)"
	}
	return r
}

// maxNodeIndex is openai-node 7's bound on a choice's and a tool call's
// index (MAX_STREAM_CHOICES, MAX_STREAM_TOOL_CALLS).
const maxNodeIndex = 128

// nodeErrorMessage is the message of the APIError openai-node builds from
// an error value (APIError.makeMessage with no status): its "message" when
// that is a string, the JSON of its "message" when that is anything else
// truthy, else the JSON of the value itself.
func nodeErrorMessage(v protocol.Value) string {
	if v.IsObject() {
		if msg := protocol.JSONValue(v.Result().Get("message").Raw); jsTruthy(msg) {
			if msg.IsString() {
				return msg.Str()
			}
			return jsonText(msg)
		}
	}
	if !jsTruthy(v) {
		return "(no status code or body)"
	}
	return jsonText(v)
}

// jsTruthy reports whether a JSON value is truthy in JavaScript: not
// absent, null, false, 0 or "" (an empty object or array is truthy).
func jsTruthy(v protocol.Value) bool {
	switch {
	case !v.Exists() || v.IsNull():
		return false
	case v.IsString():
		return v.Str() != ""
	case v.IsObject() || v.IsArray():
		return true
	}
	raw := v.Str()
	if raw == "true" || raw == "false" {
		return raw == "true"
	}
	f, err := strconv.ParseFloat(raw, 64)
	return err != nil || f != 0
}

// jsonText renders a JSON value compactly, as JSON.stringify does (number
// and escape spellings aside).
func jsonText(v protocol.Value) string {
	if v.IsString() {
		return strconv.Quote(v.Str())
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(v.Str())); err != nil {
		return v.Str()
	}
	return b.String()
}
