package clients

import (
	"strconv"
	"strings"

	"github.com/seam-dev/seam/protocol"
	"github.com/tidwall/gjson"
)

// pythonChat emulates openai-python's chat completion stream (docs/PROTOCOLS.md#chat) over the first n events: the stream stops at data starting
// [DONE]; data that is not JSON raises JSONDecodeError; a payload that is
// an object with a truthy "error" raises APIError (src/openai/_streaming.py
// Stream.__stream__), whatever its SSE event name; accumulate_delta then
// concatenates every string (role, id and name included), overwrites index
// and type, and a tool delta whose index is not yet a list position is
// inserted there rather than placed at the index, so indexes that do not
// start at 0 split one call into two entries. finish_reason length or
// content_filter makes get_final_completion() raise.
func pythonChat(se *protocol.Side, n int) Result {
	r := Result{Client: OpenAIPython, Rule: "openai-python accumulate_delta: every string concatenated (ids and names too), tool calls inserted by list position"}
	var calls pyList
	haveList := false
	var text, refusal strings.Builder
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
		if strings.HasPrefix(e.Data, "[DONE]") {
			break
		}
		if !ck.Valid {
			r.Error = joinErr(r.Error, "JSONDecodeError on event "+strconv.Itoa(e.Index))
			break
		}
		if pyTruthy(ck.Err) {
			r.Error = joinErr(r.Error, "APIError: "+pythonErrorMessage(ck.Err))
			break
		}
		deltas := cs.ChoiceDeltas(ck)
		for k := range deltas {
			d := &deltas[k]
			if d.Index != 0 {
				continue
			}
			text.WriteString(d.Content().Str())
			refusal.WriteString(d.Refusal().Str())
			tcs := cs.ToolDeltas(d)
			if d.ToolCalls.IsArray() && !haveList {
				haveList = true
				for _, tc := range tcs {
					calls.back = append(calls.back, new(pyCall).add(tc))
				}
			} else if d.ToolCalls.IsArray() {
				for _, tc := range tcs {
					calls.merge(tc)
				}
			}
			if fr := d.FinishReason; fr != "" {
				r.FinishReason = fr
			}
		}
	}
	r.Text, r.Refusal = text.String(), refusal.String()
	for _, c := range calls.all() {
		r.ToolCalls = append(r.ToolCalls, protocol.ToolCall{Index: c.index, ID: c.id.String(), Name: c.name.String(), Arguments: c.args.String()})
	}
	if r.FinishReason == "length" || r.FinishReason == "content_filter" {
		r.Error = joinErr(r.Error, "get_final_completion() raises (finish_reason "+r.FinishReason+")")
	}
	return r
}

// pyList is openai-python's accumulated tool_calls list. accumulate_delta
// reads entry list[index] when the index is a position of the list
// (Python's negative positions included) and merges the delta into it;
// otherwise it calls list.insert(index, delta), which puts the entry at
// the front (an index below -len) or at the back (an index at or past
// len): only ever at an end, so the list is a double-ended queue (front
// reversed, then back), and no index grows it past one entry per delta.
type pyList struct{ front, back []*pyCall }

func (l *pyList) len() int { return len(l.front) + len(l.back) }

// at returns entry p of the list, 0 <= p < len.
func (l *pyList) at(p int) *pyCall {
	if p < len(l.front) {
		return l.front[len(l.front)-1-p]
	}
	return l.back[p-len(l.front)]
}

func (l *pyList) merge(tc protocol.ChatToolDelta) {
	i, n := tc.Index, l.len()
	switch {
	case i >= 0 && i < n:
		l.at(i).add(tc)
	case i < 0 && i >= -n:
		l.at(n + i).add(tc)
	case i < 0:
		l.front = append(l.front, new(pyCall).add(tc))
	default:
		l.back = append(l.back, new(pyCall).add(tc))
	}
}

func (l *pyList) all() []*pyCall {
	out := make([]*pyCall, 0, l.len())
	for p := range l.len() {
		out = append(out, l.at(p))
	}
	return out
}

// pyCall is one entry of openai-python's accumulated tool_calls list.
type pyCall struct {
	index          int
	id, name, args strings.Builder
}

func (c *pyCall) add(tc protocol.ChatToolDelta) *pyCall {
	c.index = tc.Index
	c.id.WriteString(tc.ID)
	c.name.WriteString(tc.Name)
	c.args.WriteString(tc.Args.Str())
	return c
}

// pythonErrorMessage is the message of the APIError openai-python raises
// for an error value: its "message" when that is a non-empty string, else
// "An error occurred during streaming".
func pythonErrorMessage(v protocol.Value) string {
	if v.IsObject() {
		if msg := v.Result().Get("message"); msg.Type == gjson.String && msg.Str != "" {
			return msg.Str
		}
	}
	return "An error occurred during streaming"
}

// pyTruthy reports whether a JSON value is truthy in Python once decoded:
// as jsTruthy, but an empty object or array is false.
func pyTruthy(v protocol.Value) bool {
	if v.IsObject() || v.IsArray() {
		empty := true
		v.Result().ForEach(func(_, _ gjson.Result) bool {
			empty = false
			return false
		})
		return !empty
	}
	return jsTruthy(v)
}
