package shape

import (
	"github.com/seam-dev/seam/sse"
	"github.com/tidwall/gjson"
)

// anthropicDecoder decodes Anthropic Messages events. Stop reasons are mapped
// to the Chat Completions vocabulary (end_turn → stop, max_tokens → length,
// tool_use → tool_calls, refusal → content_filter).
type anthropicDecoder struct {
	tools toolSet
	// opaque holds the indexes of blocks of a type the engine does not
	// model (server tool use and results, redacted thinking, …): their
	// events, stop included, go through as they came.
	opaque map[int]bool
}

func (d *anthropicDecoder) decode(dst []Event, ev *sse.Event, m *Meta) []Event {
	root, typ, ok := typedRoot(ev)
	if !ok {
		return append(dst, opaque(ev))
	}
	idx := int(root.Get("index").Int())
	switch typ {
	case "message_start":
		msg := root.Get("message")
		m.ID = msg.Get("id").Str
		m.Model = msg.Get("model").Str
		m.InputUsage = msg.Get("usage").Raw
		role := msg.Get("role").Str
		if role == "" {
			role = "assistant"
		}
		return append(dst, Event{Kind: KindRole, Text: role})
	case "content_block_start":
		cb := root.Get("content_block")
		switch cb.Get("type").Str {
		case "text":
			return appendDelta(dst, KindText, 0, cb.Get("text").Str)
		case "thinking":
			return appendDelta(dst, KindReasoning, 0, cb.Get("thinking").Str)
		case "tool_use":
			if !d.tools.start(0, idx) {
				// A repeated start of a block still open adds nothing.
				return dst
			}
			dst = append(dst, Event{Kind: KindToolStart, Index: idx, ID: cb.Get("id").Str, Name: cb.Get("name").Str})
			// Input given whole at the start (not streamed) is kept as arguments.
			in, keys := cb.Get("input"), false
			in.ForEach(func(_, _ gjson.Result) bool { keys = true; return false })
			if in.IsObject() && keys {
				dst = append(dst, Event{Kind: KindToolArgs, Index: idx, Text: in.Raw})
			}
			return dst
		}
		if d.opaque == nil {
			d.opaque = map[int]bool{}
		}
		d.opaque[idx] = true
	case "content_block_delta":
		delta := root.Get("delta")
		switch delta.Get("type").Str {
		case "text_delta":
			return appendDelta(dst, KindText, 0, delta.Get("text").Str)
		case "thinking_delta":
			return appendDelta(dst, KindReasoning, 0, delta.Get("thinking").Str)
		case "input_json_delta":
			if !d.tools.has(0, idx) {
				// Arguments for a block that is not an open tool call: no
				// client can place them; forward them as they came.
				return append(dst, opaque(ev))
			}
			return appendDelta(dst, KindToolArgs, idx, delta.Get("partial_json").Str)
		}
	case "content_block_stop":
		if d.opaque[idx] {
			delete(d.opaque, idx)
			return append(dst, opaque(ev))
		}
		return d.tools.end(dst, 0, idx)
	case "message_delta":
		if r := root.Get("delta.stop_reason"); r.Type == gjson.String {
			dst = append(dst, Event{Kind: KindFinish, Text: fromAnthropicStop(r.Str)})
		}
		if u := root.Get("usage"); carries(u) {
			dst = append(dst, Event{Kind: KindUsage, Raw: u.Raw})
		}
		return dst
	case "message_stop":
		dst = d.tools.endChoice(dst, -1)
		return append(dst, Event{Kind: KindDone})
	case "error":
		return append(dst, errorEvent(root))
	}
	return append(dst, opaque(ev))
}

func (d *anthropicDecoder) finish(dst []Event) []Event { return d.tools.endChoice(dst, -1) }

func fromAnthropicStop(r string) string {
	switch r {
	case "end_turn", "stop_sequence":
		return "stop"
	case "max_tokens":
		return "length"
	case "tool_use":
		return "tool_calls"
	case "refusal":
		return "content_filter"
	}
	return r
}

func toAnthropicStop(r string) string {
	switch r {
	case "stop":
		return "end_turn"
	case "length":
		return "max_tokens"
	case "tool_calls":
		return "tool_use"
	case "content_filter":
		return "refusal"
	}
	return r
}
