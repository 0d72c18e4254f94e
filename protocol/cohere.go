package protocol

import (
	"maps"
	"slices"
	"strings"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/internal/jsontext"
	"github.com/tidwall/gjson"
)

// cohereBlock is one content block or tool call of a Cohere v2 stream.
type cohereBlock struct {
	thinking bool
	text     spanText
	ended    bool
	born     Born // the events that started and added to the block
}

// cohereCall is one tool call of a Cohere v2 stream.
type cohereCall struct {
	id, name string
	args     strings.Builder
	ended    bool
	born     Born
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
	var planAt Born
	started, sawDone := false, false
	var ev cohereEvent
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
		if !decodeCohere(e.Data, &ev) {
			a.flag("payload.invalid-json", i, excerpt.Clip(e.Data, 120), "event data is not valid JSON: the Cohere SDK fails on it")
			continue
		}
		typ := ev.typ
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
		idx := ev.index
		switch typ {
		case "message-start":
			if started {
				a.flag("cohere.order", i, "", "a second message-start in one stream")
			}
			started = true
			m.ID = ev.id
			m.choice(0).Role = ev.role
		case "content-start":
			if _, dup := blocks[idx]; dup {
				a.flag("cohere.order", i, excerpt.Clip(e.Data, 100), "content block %d started twice", idx)
			}
			b := &cohereBlock{thinking: ev.contentType == "thinking"}
			b.text.add(ev.text, i)
			b.text.add(ev.thinking, i)
			b.born.Add(i)
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
			if ev.hasThinking {
				b.thinking = true
				b.text.add(ev.thinking, i)
			} else {
				b.text.add(ev.text, i)
			}
			b.born.Add(i)
		case "content-end":
			if b := blocks[idx]; b != nil {
				b.ended = true
			} else {
				a.flag("cohere.order", i, excerpt.Clip(e.Data, 100), "content-end for block %d, which never started", idx)
			}
		case "tool-plan-delta":
			plan.WriteString(ev.plan)
			planAt.Add(i)
		case "tool-call-start":
			if _, dup := calls[idx]; dup {
				a.flag("cohere.order", i, excerpt.Clip(e.Data, 100), "tool call %d started twice", idx)
			}
			c := &cohereCall{id: ev.callID, name: ev.callName}
			c.args.WriteString(ev.args)
			c.born.Add(i)
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
			c.args.WriteString(ev.args)
			c.born.Add(i)
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
			a.end(i)
			fr := ev.finish
			m.choice(0).FinishReason = fr
			m.choice(0).FinishBorn.Add(i)
			m.Status = "done"
			if u := cohereUsage(ev.usage.Result()); u != nil {
				m.Usage = u
				m.UsageBorn.Add(i)
			}
			if ev.errv != "" && ev.errv != "null" || fr == "ERROR" || fr == "TIMEOUT" {
				msg := ev.errv.String()
				m.Error = strings.TrimSpace(fr + ": " + msg)
				m.ErrorBorn.Add(i)
				a.flag("stream.error-event", i, excerpt.Clip(e.Data, 160), "message-end carries an error (finish_reason %s): %s", fr, msg)
			}
		}
	}
	if !sawDone {
		a.noTerminal(len(events), "no message-end: the stream was cut")
	}
	ch := m.choice(0)
	if ch.Role == "" {
		ch.Role = "assistant"
	}
	var text spanText
	var reasoning strings.Builder
	reasoning.WriteString(plan.String())
	ch.ReasoningBorn = planAt
	for _, k := range slices.Sorted(maps.Keys(blocks)) {
		b := blocks[k]
		if b.thinking {
			reasoning.WriteString(b.text.String())
			ch.ReasoningBorn.join(b.born)
			continue
		}
		text.join(&b.text)
	}
	ch.Text, ch.Spans, ch.Reasoning = text.String(), text.spans, reasoning.String()
	for _, k := range slices.Sorted(maps.Keys(calls)) {
		c := calls[k]
		ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: k, ID: c.id, Name: c.name, Arguments: c.args.String(), Born: c.born})
		if !c.ended {
			a.flag("tool.unclosed", len(events)-1, excerpt.Clip(c.args.String(), 80), "tool call %d (%s) never got tool-call-end: its arguments may be partial", k, c.name)
		}
	}
	return a
}

// cohereEvent is what one Cohere v2 event says, decoded in one pass.
type cohereEvent struct {
	typ, id              string
	index                int
	role, contentType    string
	text, thinking, plan string
	hasThinking          bool
	callID, callName     string
	args                 string
	finish               string
	usage, errv          RawJSON
}

// decodeCohere reads a Cohere v2 payload into ev (the fields of
// delta.message, delta.finish_reason, delta.usage and delta.error) and
// reports whether it is valid JSON.
func decodeCohere(data string, ev *cohereEvent) bool {
	*ev = cohereEvent{}
	sc := scanOf(data)
	for k := range sc.Object() {
		switch k {
		case "type":
			ev.typ = sc.Str()
		case "id":
			ev.id = sc.Str()
		case "index":
			ev.index = int(sc.Int())
		case "delta":
			for k := range sc.Object() {
				switch k {
				case "message":
					decodeCohereMessage(&sc, ev)
				case "finish_reason":
					ev.finish = sc.Str()
				case "usage":
					ev.usage = sc.rawJSON()
				case "error":
					ev.errv = sc.rawJSON()
				default:
					sc.Skip()
				}
			}
		default:
			sc.Skip()
		}
	}
	return sc.End()
}

// decodeCohereMessage reads delta.message: role, content, tool_plan and
// tool_calls (one object, or the first element of a list).
func decodeCohereMessage(sc *jscan, ev *cohereEvent) {
	for k := range sc.Object() {
		switch k {
		case "role":
			ev.role = sc.Str()
		case "tool_plan":
			ev.plan = sc.Str()
		case "content":
			for k := range sc.Object() {
				switch k {
				case "type":
					ev.contentType = sc.Str()
				case "text":
					ev.text = sc.Str()
				case "thinking":
					ev.thinking, ev.hasThinking = sc.Str(), true
				default:
					sc.Skip()
				}
			}
		case "tool_calls":
			call := sc.rawJSON()
			r := call.Result()
			if r.IsArray() {
				r = r.Get("0")
			}
			var f [3]gjson.Result
			jsontext.GetFields(r, []string{"id", "function"}, f[:2])
			ev.callID = f[0].String()
			jsontext.GetFields(f[1], []string{"name", "arguments"}, f[:2])
			ev.callName, ev.args = f[0].String(), f[1].String()
		default:
			sc.Skip()
		}
	}
}
