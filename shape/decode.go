package shape

import (
	"strings"

	"github.com/seam-dev/seam/sse"
	"github.com/tidwall/gjson"
)

// protocol names an LLM streaming wire protocol.
type protocol uint8

const (
	protoUnknown   protocol = iota
	protoChat               // OpenAI Chat Completions
	protoResponses          // OpenAI Responses
	protoAnthropic          // Anthropic Messages
)

// decoder turns upstream SSE events into normalized events. decode appends
// the events for one upstream event; finish appends the events owed when the
// stream ends without a terminal event (open tool calls are closed).
type decoder interface {
	decode(dst []Event, ev *sse.Event, m *Meta) []Event
	finish(dst []Event) []Event
}

// sniff tells the upstream protocol from the first event of a stream.
func sniff(ev *sse.Event) protocol {
	t := ev.Type
	switch {
	case strings.HasPrefix(t, "response."):
		return protoResponses
	case t == "message_start" || t == "ping" || strings.HasPrefix(t, "content_block_") || t == "message_delta":
		return protoAnthropic
	}
	d := strings.TrimSpace(ev.Data)
	if d == "[DONE]" || !strings.HasPrefix(d, "{") {
		return protoUnknown
	}
	typ := gjson.Get(d, "type").String()
	switch {
	case strings.HasPrefix(typ, "response."):
		return protoResponses
	case typ == "message_start":
		return protoAnthropic
	}
	if gjson.Get(d, "choices").Exists() || gjson.Get(d, "object").String() == "chat.completion.chunk" {
		return protoChat
	}
	return protoUnknown
}

func opaque(ev *sse.Event) Event {
	return Event{Kind: KindOpaque, Raw: ev.Data, Type: ev.Type, EventID: ev.ID}
}

// typedRoot parses the JSON object of an event of a typed protocol
// (Responses, Anthropic) and returns it with the event's type: the payload's
// "type", else the SSE event name. ok is false when the data is not an
// object.
func typedRoot(ev *sse.Event) (root gjson.Result, typ string, ok bool) {
	data := ev.Data
	if len(data) == 0 || data[0] != '{' {
		return gjson.Result{}, "", false
	}
	root = gjson.Parse(data)
	typ = root.Get("type").Str
	if typ == "" {
		typ = ev.Type
	}
	return root, typ, true
}

// errorEvent is the KindError for an "error" event of a typed protocol: its
// "error" object, else the whole payload.
func errorEvent(root gjson.Result) Event {
	e := root.Get("error")
	if !e.Exists() {
		e = root
	}
	return Event{Kind: KindError, Raw: e.Raw}
}

// appendDelta appends an event of kind carrying text for tool (or block)
// index, unless text is empty.
func appendDelta(dst []Event, kind Kind, index int, text string) []Event {
	if text == "" {
		return dst
	}
	return append(dst, Event{Kind: kind, Index: index, Text: text})
}

// openTool is a structured tool call a decoder has started and not ended.
type openTool struct {
	choice, index int
}

type toolSet struct{ open []openTool }

// start opens the call (choice, index) and reports whether it was not open
// already.
func (s *toolSet) start(choice, index int) bool {
	if s.has(choice, index) {
		return false
	}
	s.open = append(s.open, openTool{choice, index})
	return true
}

func (s *toolSet) has(choice, index int) bool {
	for _, t := range s.open {
		if t.choice == choice && t.index == index {
			return true
		}
	}
	return false
}

// endChoice appends a KindToolEnd for every open call of choice (all choices
// when choice < 0), in the order they started.
func (s *toolSet) endChoice(dst []Event, choice int) []Event {
	kept := s.open[:0]
	for _, t := range s.open {
		if choice >= 0 && t.choice != choice {
			kept = append(kept, t)
			continue
		}
		dst = append(dst, Event{Kind: KindToolEnd, Choice: t.choice, Index: t.index})
	}
	s.open = kept
	return dst
}

func (s *toolSet) end(dst []Event, choice, index int) []Event {
	for i, t := range s.open {
		if t.choice == choice && t.index == index {
			s.open = append(s.open[:i], s.open[i+1:]...)
			return append(dst, Event{Kind: KindToolEnd, Choice: choice, Index: index})
		}
	}
	return dst
}

// chatDecoder decodes OpenAI Chat Completions chunks.
type chatDecoder struct {
	tools   toolSet
	metaSet bool
	// legacyCalls decodes the deprecated delta.function_call as a tool call
	// (index 0), for a client that cannot receive it as it came (XML tools,
	// a Responses client); otherwise such a chunk goes through whole.
	legacyCalls bool
	// refusals decodes delta.refusal, for a Responses client; otherwise
	// such a chunk goes through whole.
	refusals bool
}

// carries reports whether v holds something a client would show.
func carries(v gjson.Result) bool {
	switch v.Type {
	case gjson.Null:
		return false
	case gjson.String:
		return v.Str != ""
	case gjson.JSON:
		return v.Raw != "[]" && v.Raw != "{}"
	}
	return true
}

func (d *chatDecoder) decode(dst []Event, ev *sse.Event, m *Meta) []Event {
	data := ev.Data
	if strings.TrimSpace(data) == "[DONE]" {
		dst = d.tools.endChoice(dst, -1)
		return append(dst, Event{Kind: KindDone})
	}
	if len(data) == 0 || data[0] != '{' {
		return append(dst, opaque(ev))
	}
	// gjson reads only the paths asked for. An error event has no choices;
	// "usage" is looked up only when the payload outside the choices
	// mentions it.
	choices := gjson.Get(data, "choices")
	if !choices.IsArray() {
		if e := gjson.Get(data, "error"); carries(e) {
			return append(dst, Event{Kind: KindError, Raw: e.Raw})
		}
		return append(dst, opaque(ev))
	}
	var usage gjson.Result
	if mentionsOutside(data, choices, "usage") {
		usage = gjson.Get(data, "usage")
	}
	if !d.metaSet {
		d.metaSet = true
		m.ID = gjson.Get(data, "id").String()
		m.Model = gjson.Get(data, "model").String()
		m.Created = gjson.Get(data, "created").Raw
	}
	mark := len(dst)
	unknown := ""
	sawChoice := false
	choices.ForEach(func(_, c gjson.Result) bool {
		sawChoice = true
		dst, unknown = d.choice(dst, c)
		return unknown == ""
	})
	if unknown != "" {
		o := opaque(ev)
		o.Lost = unknown
		return append(dst[:mark], o)
	}
	if !sawChoice && !carries(usage) {
		return append(dst, opaque(ev))
	}
	if carries(usage) {
		dst = append(dst, Event{Kind: KindUsage, Raw: usage.Raw})
	}
	return dst
}

// choice appends the events of one choice of a chunk, or returns the
// field the engine does not model that makes the whole chunk go through
// as it came.
func (d *chatDecoder) choice(dst []Event, c gjson.Result) ([]Event, string) {
	var idx, delta, finish gjson.Result
	c.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "index":
			idx = v
		case "delta":
			delta = v
		case "finish_reason":
			finish = v
		}
		return true
	})
	ci := int(idx.Int())
	f, unknown := d.delta(delta)
	if unknown != "" {
		return dst, unknown
	}
	if f.role.Str != "" {
		dst = append(dst, Event{Kind: KindRole, Choice: ci, Text: f.role.Str})
	}
	if f.reasoning.Str != "" {
		dst = append(dst, Event{Kind: KindReasoning, Choice: ci, Text: f.reasoning.Str})
	}
	if f.content.Type == gjson.String && f.content.Str != "" {
		dst = append(dst, Event{Kind: KindText, Choice: ci, Text: f.content.Str})
	}
	if f.refusal.Type == gjson.String && f.refusal.Str != "" {
		dst = append(dst, Event{Kind: KindRefusal, Choice: ci, Text: f.refusal.Str})
	}
	if f.legacy.IsObject() {
		dst = d.legacyCall(dst, ci, f.legacy)
	}
	if f.tcs.IsArray() {
		pos := 0
		f.tcs.ForEach(func(_, tc gjson.Result) bool {
			dst = d.toolCall(dst, ci, pos, tc)
			pos++
			return true
		})
	}
	if finish.Type == gjson.String && finish.Str != "" {
		dst = d.tools.endChoice(dst, ci)
		dst = append(dst, Event{Kind: KindFinish, Choice: ci, Text: finish.Str})
	}
	return dst, ""
}

// chatDelta holds the fields of a choice's delta the engine models.
type chatDelta struct {
	role, content, reasoning, refusal, tcs, legacy gjson.Result
}

// delta reads a choice's delta, or returns the first field it carries that
// the engine does not model ("delta.audio").
func (d *chatDecoder) delta(delta gjson.Result) (f chatDelta, unknown string) {
	delta.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "role":
			f.role = v
		case "content":
			f.content = v
		case "reasoning_content", "reasoning":
			if v.Type == gjson.String && v.Str != "" {
				f.reasoning = v
			}
		case "refusal":
			if d.refusals {
				f.refusal = v
			} else if carries(v) {
				unknown = "delta.refusal"
				return false
			}
		case "tool_calls":
			f.tcs = v
		case "function_call":
			if d.legacyCalls {
				f.legacy = v
				return true
			}
			fallthrough
		default:
			// A field the engine does not model (audio, annotations,
			// a legacy function_call the client can take as it
			// came): the chunk goes through whole.
			if carries(v) {
				unknown = "delta." + k.Str
				return false
			}
		}
		return true
	})
	return f, unknown
}

// mentionsOutside reports whether s occurs in data outside the span of the
// value r (found in data by gjson.Get).
func mentionsOutside(data string, r gjson.Result, s string) bool {
	i := r.Index
	if i <= 0 || i+len(r.Raw) > len(data) {
		return strings.Contains(data, s)
	}
	return strings.Contains(data[:i], s) || strings.Contains(data[i+len(r.Raw):], s)
}

func (d *chatDecoder) toolCall(dst []Event, ci, pos int, tc gjson.Result) []Event {
	ti := pos
	var id, name, args gjson.Result
	tc.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "index":
			ti = int(v.Int())
		case "id":
			id = v
		case "function":
			v.ForEach(func(k, v gjson.Result) bool {
				switch k.Str {
				case "name":
					name = v
				case "arguments":
					args = v
				}
				return true
			})
		}
		return true
	})
	if d.tools.start(ci, ti) {
		dst = append(dst, Event{Kind: KindToolStart, Choice: ci, Index: ti, ID: id.String(), Name: name.String()})
	}
	if args.Str != "" {
		dst = append(dst, Event{Kind: KindToolArgs, Choice: ci, Index: ti, Text: args.Str})
	}
	return dst
}

// legacyCall decodes a deprecated delta.function_call ({name, arguments},
// no id): the one call of its choice, kept as tool call 0.
func (d *chatDecoder) legacyCall(dst []Event, ci int, fc gjson.Result) []Event {
	if d.tools.start(ci, 0) {
		dst = append(dst, Event{Kind: KindToolStart, Choice: ci, Index: 0, Name: fc.Get("name").String()})
	}
	if a := fc.Get("arguments").String(); a != "" {
		dst = append(dst, Event{Kind: KindToolArgs, Choice: ci, Index: 0, Text: a})
	}
	return dst
}

func (d *chatDecoder) finish(dst []Event) []Event { return d.tools.endChoice(dst, -1) }
