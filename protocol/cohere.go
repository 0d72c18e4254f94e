package protocol

import (
	"maps"
	"slices"
	"strings"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/tidwall/gjson"
)

// cohereBlock is one content block or tool call of a Cohere v2 stream.
type cohereBlock struct {
	thinking bool
	text     strings.Builder
	spans    []Span
	ended    bool
}

type cohereCall struct {
	id, name string
	args     strings.Builder
	ended    bool
}

// assembleCohere follows providers.md §4 (the cohere-python SDK's
// V2ChatStreamResponse union, dispatched on the payload's type): content
// blocks by index, typed text or thinking by their content-start; the
// tool-plan deltas joined (the plan is the model's reasoning before its
// calls); tool calls by index, started whole by tool-call-start (an object,
// not a list), their arguments joined from tool-call-delta and parsed at
// tool-call-end; message-end carries the finish reason, the usage and the
// in-band error, and ends the stream. A data: [DONE] after it is what the
// API sends and the SDK stops at.
func assembleCohere(se *Side) *Assembly {
	a := newAssembly(Cohere)
	m := &a.Message
	blocks := map[int]*cohereBlock{}
	calls := map[int]*cohereCall{}
	var plan strings.Builder
	started, sawDone := false, false
	events := se.Events
	for i := range events {
		e := &events[i]
		if IsDone(e.Data) {
			if a.Terminal < 0 {
				a.flag("stream.no-terminal", i, e.Data, "data: [DONE] before message-end: the SDK stops here without a finish reason")
			}
			sawDone = true
			continue
		}
		if sawDone {
			a.flag("stream.after-terminal", i, excerpt.Clip(e.Data, 120), "event after data: [DONE], where the Cohere SDK stops reading")
			continue
		}
		if !gjson.Valid(e.Data) {
			a.flag("payload.invalid-json", i, excerpt.Clip(e.Data, 120), "event data is not valid JSON: the Cohere SDK fails on it")
			continue
		}
		r := gjson.Parse(e.Data)
		typ := r.Get("type").String()
		if typ == "" {
			typ = e.Name
		}
		if e.Name != "" && e.Name != "message" && e.Name != typ {
			a.flagOnce("stream.event-name-mismatch", i, "event: "+e.Name+" / type: "+typ, "SSE event name differs from the JSON type (the SDK follows the type)")
		}
		if a.Terminal >= 0 {
			a.flag("stream.after-end", i, excerpt.Clip(e.Data, 120), "%s after message-end", typ)
		}
		if !started && typ != "message-start" {
			a.flagOnce("cohere.order", i, typ, "%s before message-start", typ)
		}
		idx := int(r.Get("index").Int())
		msg := r.Get("delta.message")
		switch typ {
		case "message-start":
			if started {
				a.flag("cohere.order", i, "", "a second message-start in one stream")
			}
			started = true
			m.ID = r.Get("id").String()
			m.choice(0).Role = msg.Get("role").String()
		case "content-start":
			if _, dup := blocks[idx]; dup {
				a.flag("cohere.order", i, excerpt.Clip(e.Data, 100), "content block %d started twice", idx)
			}
			c := msg.Get("content")
			b := &cohereBlock{thinking: c.Get("type").String() == "thinking"}
			b.text.WriteString(c.Get("text").String())
			b.text.WriteString(c.Get("thinking").String())
			blocks[idx] = b
		case "content-delta":
			b := blocks[idx]
			if b == nil {
				a.flag("cohere.order", i, excerpt.Clip(e.Data, 100), "content-delta for block %d, which never started", idx)
				b = &cohereBlock{}
				blocks[idx] = b
			}
			if b.ended {
				a.flag("cohere.order", i, excerpt.Clip(e.Data, 100), "content-delta for block %d after its content-end", idx)
			}
			c := msg.Get("content")
			if t := c.Get("thinking"); t.Exists() {
				b.thinking = true
				b.text.WriteString(t.String())
			} else if t := c.Get("text").String(); t != "" {
				b.spans = append(b.spans, Span{At: b.text.Len(), Event: i})
				b.text.WriteString(t)
			}
		case "content-end":
			if b := blocks[idx]; b != nil {
				b.ended = true
			} else {
				a.flag("cohere.order", i, excerpt.Clip(e.Data, 100), "content-end for block %d, which never started", idx)
			}
		case "tool-plan-delta":
			plan.WriteString(msg.Get("tool_plan").String())
		case "tool-call-start":
			if _, dup := calls[idx]; dup {
				a.flag("cohere.order", i, excerpt.Clip(e.Data, 100), "tool call %d started twice", idx)
			}
			tc := msg.Get("tool_calls")
			if tc.IsArray() {
				tc = tc.Get("0")
			}
			c := &cohereCall{id: tc.Get("id").String(), name: tc.Get("function.name").String()}
			c.args.WriteString(tc.Get("function.arguments").String())
			calls[idx] = c
		case "tool-call-delta":
			c := calls[idx]
			if c == nil {
				a.flag("cohere.order", i, excerpt.Clip(e.Data, 100), "tool-call-delta for call %d, which never started", idx)
				c = &cohereCall{}
				calls[idx] = c
			}
			if c.ended {
				a.flag("cohere.order", i, excerpt.Clip(e.Data, 100), "tool-call-delta for call %d after its tool-call-end", idx)
			}
			c.args.WriteString(msg.Get("tool_calls.function.arguments").String())
		case "tool-call-end":
			c := calls[idx]
			if c == nil {
				a.flag("cohere.order", i, excerpt.Clip(e.Data, 100), "tool-call-end for call %d, which never started", idx)
				continue
			}
			c.ended = true
			if js := c.args.String(); js != "" && !gjson.Valid(js) {
				a.flag("tool.args-invalid-json", i, excerpt.Clip(js, 120), "tool call %s arguments are not valid JSON at tool-call-end", c.name)
			}
		case "message-end":
			if a.Terminal < 0 {
				a.Terminal = i
			}
			d := r.Get("delta")
			fr := d.Get("finish_reason").String()
			m.choice(0).FinishReason = fr
			m.Status = "done"
			if u := d.Get("usage.tokens"); u.IsObject() {
				m.Usage = &Usage{Input: int(u.Get("input_tokens").Int()), Output: int(u.Get("output_tokens").Int())}
			}
			if errv := d.Get("error"); errv.Exists() && errv.Type != gjson.Null || fr == "ERROR" || fr == "TIMEOUT" {
				m.Error = strings.TrimSpace(fr + ": " + errv.String())
				a.flag("stream.error-event", i, excerpt.Clip(e.Data, 160), "message-end carries an error (finish_reason %s): %s", fr, errv.String())
			}
		}
	}
	if a.Terminal < 0 && len(events) > 0 && !sawDone {
		a.flag("stream.no-terminal", len(events)-1, "", "no message-end: the stream was cut")
	}
	ch := m.choice(0)
	if ch.Role == "" {
		ch.Role = "assistant"
	}
	var text, reasoning strings.Builder
	reasoning.WriteString(plan.String())
	for _, k := range slices.Sorted(maps.Keys(blocks)) {
		b := blocks[k]
		if b.thinking {
			reasoning.WriteString(b.text.String())
			continue
		}
		for _, s := range b.spans {
			ch.Spans = append(ch.Spans, Span{At: text.Len() + s.At, Event: s.Event})
		}
		text.WriteString(b.text.String())
	}
	ch.Text, ch.Reasoning = text.String(), reasoning.String()
	for _, k := range slices.Sorted(maps.Keys(calls)) {
		c := calls[k]
		ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: k, ID: c.id, Name: c.name, Arguments: c.args.String()})
		if !c.ended {
			a.flag("tool.unclosed", len(events)-1, excerpt.Clip(c.args.String(), 80), "tool call %d (%s) never got tool-call-end: its arguments may be partial", k, c.name)
		}
	}
	return a
}
