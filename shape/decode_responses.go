package shape

import (
	"cmp"
	"maps"
	"slices"

	"github.com/seam-dev/seam/sse"
	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// responsesDecoder decodes OpenAI Responses events. Lifecycle events that an
// encoder derives again (in_progress, content_part.*, *.done for text) carry
// nothing of their own and are absorbed; unknown events pass through opaque.
type responsesDecoder struct {
	tools    toolSet
	argsSeen map[int]bool
	anyTool  bool
	// customTools decodes custom (free-form input) tool calls as tool calls
	// whose arguments are {"input": …}, for XML tools; otherwise their
	// events go through as they came.
	customTools bool
	custom      map[int]bool // output indexes of custom calls being decoded
}

func (d *responsesDecoder) decode(dst []Event, ev *sse.Event, m *Meta) []Event {
	root, typ, ok := typedRoot(ev)
	if !ok {
		return append(dst, opaque(ev))
	}
	oi := int(root.Get("output_index").Int())
	switch typ {
	case "response.created":
		r := root.Get("response")
		m.ID = r.Get("id").Str
		m.Model = r.Get("model").Str
		m.Created = r.Get("created_at").Raw
		return append(dst, Event{Kind: KindRole, Text: "assistant"})
	case "response.in_progress", "response.queued", "response.content_part.added", "response.content_part.done",
		"response.output_text.done", "response.reasoning_summary_part.added", "response.reasoning_summary_part.done",
		"response.reasoning_summary_text.done", "response.reasoning_text.done":
		return dst
	case "response.output_item.added", "response.output_item.done":
		return d.item(dst, ev, typ, oi, root.Get("item"))
	case "response.custom_tool_call_input.delta":
		if d.custom[oi] {
			return append(dst, Event{Kind: KindToolArgs, Index: oi, Text: jsonEscape(root.Get("delta").Str)})
		}
	case "response.custom_tool_call_input.done":
		if d.custom[oi] {
			return dst
		}
	case "response.refusal.delta":
		return appendDelta(dst, KindRefusal, 0, root.Get("delta").Str)
	case "response.refusal.done":
		return dst
	case "response.output_text.delta":
		return appendDelta(dst, KindText, 0, root.Get("delta").Str)
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		return appendDelta(dst, KindReasoning, 0, root.Get("delta").Str)
	case "response.function_call_arguments.delta", "response.function_call_arguments.done":
		if !d.tools.has(0, oi) {
			// Arguments for an output item that is not an open function
			// call: no client can place them; forward them as they came.
			return append(dst, opaque(ev))
		}
		if typ == "response.function_call_arguments.delta" {
			return d.args(dst, oi, root.Get("delta").Str)
		}
		if d.argsSeen[oi] {
			return dst
		}
		return d.args(dst, oi, root.Get("arguments").Str)
	case "response.completed", "response.incomplete", "response.failed":
		return d.terminal(dst, typ, root.Get("response"))
	case "error":
		return append(dst, errorEvent(root))
	}
	return append(dst, opaque(ev))
}

// item reads an output item's added or done event (typ) at output index
// oi: a function call starts or ends, a custom tool call goes to
// customCall, a message or reasoning item says nothing of its own.
func (d *responsesDecoder) item(dst []Event, ev *sse.Event, typ string, oi int, item gjson.Result) []Event {
	switch item.Get("type").Str {
	case "function_call":
		if typ == "response.output_item.added" {
			if d.tools.start(0, oi) {
				d.anyTool = true
				id := item.Get("call_id").Str
				if id == "" {
					id = item.Get("id").Str
				}
				dst = append(dst, Event{Kind: KindToolStart, Index: oi, ID: id, Name: item.Get("name").Str})
			}
			return dst
		}
		if a := item.Get("arguments").Str; a != "" && !d.argsSeen[oi] {
			dst = append(dst, Event{Kind: KindToolArgs, Index: oi, Text: a})
		}
		return d.tools.end(dst, 0, oi)
	case "custom_tool_call":
		if d.customTools {
			return d.customCall(dst, typ, oi, item)
		}
	case "message", "reasoning":
		return dst
	}
	return append(dst, opaque(ev))
}

// terminal reads the event that ends a response (typ: completed,
// incomplete or failed; r its response): the open calls end, then the
// finish reason, an error, the usage, and the end of the stream.
func (d *responsesDecoder) terminal(dst []Event, typ string, r gjson.Result) []Event {
	dst = d.closeCustom(dst)
	dst = d.tools.endChoice(dst, -1)
	reason := "stop"
	switch typ {
	case "response.completed":
		if d.anyTool {
			reason = "tool_calls"
		}
	case "response.incomplete":
		reason = "length"
		if r.Get("incomplete_details.reason").Str == "content_filter" {
			reason = "content_filter"
		}
	case "response.failed":
		if e := r.Get("error"); carries(e) {
			dst = append(dst, Event{Kind: KindError, Raw: e.Raw})
		}
		reason = "error"
	}
	dst = append(dst, Event{Kind: KindFinish, Text: reason})
	if u := r.Get("usage"); carries(u) {
		dst = append(dst, Event{Kind: KindUsage, Raw: u.Raw})
	}
	return append(dst, Event{Kind: KindDone})
}

// args appends the arguments a of the call at output index oi, if any, and
// notes that the call's arguments were seen, so a later copy of them (in
// function_call_arguments.done or output_item.done) is not sent again.
func (d *responsesDecoder) args(dst []Event, oi int, a string) []Event {
	if a == "" {
		return dst
	}
	if d.argsSeen == nil {
		d.argsSeen = map[int]bool{}
	}
	d.argsSeen[oi] = true
	return append(dst, Event{Kind: KindToolArgs, Index: oi, Text: a})
}

// customCall decodes the output_item.added and .done of a custom tool
// call: a tool call whose arguments are the JSON object {"input": …}, its
// input streamed as escaped pieces of that string.
func (d *responsesDecoder) customCall(dst []Event, typ string, oi int, item gjson.Result) []Event {
	if typ == "response.output_item.added" {
		if !d.tools.start(0, oi) {
			return dst
		}
		if d.custom == nil {
			d.custom = map[int]bool{}
		}
		d.custom[oi], d.anyTool = true, true
		id := cmp.Or(item.Get("call_id").Str, item.Get("id").Str)
		dst = append(dst, Event{Kind: KindToolStart, Index: oi, ID: id, Name: item.Get("name").Str},
			Event{Kind: KindToolArgs, Index: oi, Text: `{"input":"` + jsonEscape(item.Get("input").Str)})
		return dst
	}
	if !d.custom[oi] {
		return dst
	}
	delete(d.custom, oi)
	dst = append(dst, Event{Kind: KindToolArgs, Index: oi, Text: `"}`})
	return d.tools.end(dst, 0, oi)
}

// jsonEscape returns s escaped as the inside of a JSON string.
func jsonEscape(s string) string {
	b := tape.AppendJSONString(nil, s)
	return string(b[1 : len(b)-1])
}

// closeCustom ends the input string of every custom call still open.
func (d *responsesDecoder) closeCustom(dst []Event) []Event {
	for _, oi := range slices.Sorted(maps.Keys(d.custom)) {
		dst = append(dst, Event{Kind: KindToolArgs, Index: oi, Text: `"}`})
	}
	clear(d.custom)
	return dst
}

func (d *responsesDecoder) finish(dst []Event) []Event {
	return d.tools.endChoice(d.closeCustom(dst), -1)
}
