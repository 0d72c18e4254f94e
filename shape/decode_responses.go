package shape

import (
	"github.com/seam-dev/seam/sse"
	"github.com/tidwall/gjson"
)

// responsesDecoder decodes OpenAI Responses events. Lifecycle events that an
// encoder derives again (in_progress, content_part.*, *.done for text) carry
// nothing of their own and are absorbed; unknown events pass through opaque.
type responsesDecoder struct {
	tools    toolSet
	argsSeen map[int]bool
	anyTool  bool
}

func (d *responsesDecoder) decode(dst []Event, ev *sse.Event, m *Meta) []Event {
	data := ev.Data
	if len(data) == 0 || data[0] != '{' {
		return append(dst, opaque(ev))
	}
	root := gjson.Parse(data)
	typ := root.Get("type").Str
	if typ == "" {
		typ = ev.Type
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
		item := root.Get("item")
		switch item.Get("type").Str {
		case "function_call":
			if typ == "response.output_item.added" {
				if !d.tools.has(0, oi) {
					d.tools.open = append(d.tools.open, openTool{0, oi})
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
		case "message", "reasoning":
			return dst
		}
		return append(dst, opaque(ev))
	case "response.output_text.delta":
		if t := root.Get("delta").Str; t != "" {
			dst = append(dst, Event{Kind: KindText, Text: t})
		}
		return dst
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		if t := root.Get("delta").Str; t != "" {
			dst = append(dst, Event{Kind: KindReasoning, Text: t})
		}
		return dst
	case "response.function_call_arguments.delta":
		if t := root.Get("delta").Str; t != "" {
			if d.argsSeen == nil {
				d.argsSeen = map[int]bool{}
			}
			d.argsSeen[oi] = true
			dst = append(dst, Event{Kind: KindToolArgs, Index: oi, Text: t})
		}
		return dst
	case "response.function_call_arguments.done":
		if a := root.Get("arguments").Str; a != "" && !d.argsSeen[oi] {
			if d.argsSeen == nil {
				d.argsSeen = map[int]bool{}
			}
			d.argsSeen[oi] = true
			dst = append(dst, Event{Kind: KindToolArgs, Index: oi, Text: a})
		}
		return dst
	case "response.completed", "response.incomplete", "response.failed":
		r := root.Get("response")
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
	case "error":
		e := root.Get("error")
		if !e.Exists() {
			e = root
		}
		return append(dst, Event{Kind: KindError, Raw: e.Raw})
	}
	return append(dst, opaque(ev))
}

func (d *responsesDecoder) finish(dst []Event) []Event { return d.tools.endChoice(dst, -1) }
