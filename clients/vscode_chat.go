package clients

import (
	"bytes"
	"strings"

	"github.com/seam-dev/seam/internal/jsstring"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// vscodeChat emulates VS Code Copilot Chat's SSEProcessor
// (docs/PROTOCOLS.md#sse, #chat) over the raw body: lines split on "\n"
// only; a last line without "\n" is never processed; ':' lines skipped;
// the first 5 characters of any other line removed and the rest trimmed;
// [DONE] stops reading; unparseable lines skipped. Per choice 0: one
// trailing "\r" removed from each content delta; content in a delta that
// has tool_calls dropped; a " " appended to existing text when the first
// named tool call starts; tool calls matched by id, else the last call,
// name overwritten, arguments joined; reasoning_content and reasoning
// ignored; tool calls emitted only with finish_reason tool_calls or stop;
// a finished choice ignores later chunks.
//
// A line whose payload is exactly the data of the event it belongs to (the
// common case) reuses that event's decoded chunk; any other line is decoded
// on its own.
func vscodeChat(se *protocol.Side) Result {
	v := vscodeChatReader{r: Result{Client: VSCode, Rule: "VS Code Copilot Chat SSEProcessor: read line by line, tool calls matched by id, content beside tool_calls dropped"}}
	byID := map[string]int{} // the call with each id (ids are set once); not in v, so it stays on the stack
	events := se.Events
	var cs *protocol.ChatSide
	if len(events) > 0 {
		cs = se.ChatEvents()
	}
	k := 0
	forEachLine(se.Chunks, func(line []byte, off int64) bool {
		if len(line) == 0 || line[0] == ':' {
			return true
		}
		if len(line) < 5 {
			line = nil
		} else {
			line = line[5:]
		}
		payload := jsstring.TrimBytes(line)
		if string(payload) == "[DONE]" {
			v.sawDone = true
			return false
		}
		for k < len(events) && events[k].End <= off {
			k++
		}
		side, ck := cs, (*protocol.ChatChunk)(nil)
		if k < len(events) && events[k].Off <= off && events[k].Data == string(payload) {
			ck = cs.Chunk(k)
		} else {
			side, ck = protocol.DecodeChatData(string(payload))
		}
		v.chunk(side, ck, byID)
		return true
	})
	return v.result()
}

// vscodeChatReader is what VS Code's SSEProcessor holds while it reads a
// Chat Completions stream.
type vscodeChatReader struct {
	r        Result
	finished bool
	calls    []protocol.ToolCall
	args     []*strings.Builder
	sawDone  bool

	text, reasoning, refusal strings.Builder
}

// chunk reads one decoded line: an error payload without choices ends
// the reply, choice 0's delta adds to it. byID holds the call with each
// id.
func (v *vscodeChatReader) chunk(side *protocol.ChatSide, ck *protocol.ChatChunk, byID map[string]int) {
	if !ck.Valid {
		return
	}
	if !ck.Choices.Exists() || ck.Choices.IsNull() {
		if ck.Err.Exists() {
			v.r.Error, v.r.FinishReason = protocol.ErrorText(ck.Err.Result()), "error"
			v.finished = true
		}
		return
	}
	deltas := side.ChoiceDeltas(ck)
	for n := range deltas {
		d := &deltas[n]
		if d.Index != 0 || v.finished {
			continue
		}
		if d.ToolCalls.Exists() && !d.ToolCalls.IsNull() {
			for _, tc := range side.ToolDeltas(d) {
				v.toolDelta(tc, byID)
			}
		} else if t := d.Content().Str(); t != "" {
			v.text.WriteString(strings.TrimSuffix(t, "\r"))
		}
		if d.VSCodeReasoning {
			for _, k := range []string{"cot_summary", "reasoning_text", "thinking"} {
				v.reasoning.WriteString(gjson.Get(d.Delta, k).String())
			}
		}
		v.refusal.WriteString(d.Refusal().Str())
		if fr := d.FinishReason; fr != "" {
			v.r.FinishReason = fr
			v.finished = true
		}
	}
}

// toolDelta adds one tool call delta: to the call with its id, else to
// the last call, else to a new call (a space joining the text before the
// first named one).
func (v *vscodeChatReader) toolDelta(tc protocol.ChatToolDelta, byID map[string]int) {
	id, name := tc.ID, tc.Name
	cur := -1
	if id != "" {
		if at, ok := byID[id]; ok {
			cur = at
		}
	} else if len(v.calls) > 0 {
		cur = len(v.calls) - 1
	}
	if cur < 0 || (id != "" && v.calls[cur].ID != id) {
		if len(v.calls) == 0 && name != "" && v.text.Len() > 0 {
			v.text.WriteByte(' ')
		}
		v.calls = append(v.calls, protocol.ToolCall{Index: len(v.calls)})
		v.args = append(v.args, new(strings.Builder))
		cur = len(v.calls) - 1
	}
	if id != "" {
		v.calls[cur].ID = id
		byID[id] = cur
	}
	if name != "" {
		v.calls[cur].Name = name
	}
	v.args[cur].WriteString(tc.Args.Str())
}

// result is the reply VS Code ends with: the tool calls only when the
// choice finished with tool_calls or stop, a finish reason of its own
// when there was none.
func (v *vscodeChatReader) result() Result {
	r := v.r
	r.Text, r.Reasoning, r.Refusal = v.text.String(), v.reasoning.String(), v.refusal.String()
	for i := range v.calls {
		v.calls[i].Arguments = v.args[i].String()
	}
	if r.FinishReason == "" {
		r.FinishReason = "Iteration Done"
		if v.sawDone {
			r.FinishReason = "DONE"
		}
	}
	if r.FinishReason == "tool_calls" || r.FinishReason == "stop" {
		r.ToolCalls = v.calls
	} else if len(v.calls) > 0 {
		r.Error = joinErr(r.Error, "tool calls dropped (finish_reason "+r.FinishReason+")")
	}
	return r
}

// forEachLine calls fn for each "\n"-terminated line of the body the chunks
// make up (without the "\n"), with the body offset of its first byte, until
// fn returns false. A last line without "\n" is not passed. Lines within one
// chunk are passed in place; only a line spanning chunks is copied.
func forEachLine(chunks []tape.Chunk, fn func(line []byte, off int64) bool) {
	var carry []byte
	carryOff := int64(-1)
	for _, c := range chunks {
		b := c.Data
		off := c.Off
		for len(b) > 0 {
			nl := bytes.IndexByte(b, '\n')
			if nl < 0 {
				if carryOff < 0 {
					carryOff = off
				}
				carry = append(carry, b...)
				break
			}
			line, lineOff := b[:nl], off
			if carryOff >= 0 {
				carry = append(carry, line...)
				line, lineOff = carry, carryOff
			}
			if !fn(line, lineOff) {
				return
			}
			carry, carryOff = carry[:0], -1
			b = b[nl+1:]
			off += int64(nl + 1)
		}
	}
}
