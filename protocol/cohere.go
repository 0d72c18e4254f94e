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

// cohereState is the assembly state of a Cohere v2 stream.
type cohereState struct {
	a      *Assembly
	m      *Message
	blocks map[int]*cohereBlock
	calls  map[int]*cohereCall
	plan   strings.Builder
	planAt Born
	ev     cohereEvent
}

// cohereHandlers route by the payload's type (the SSE name when it has
// none), as the SDK's union does.
var cohereHandlers = handlers[cohereState, cohereEvent]{
	decode: func(s *cohereState, _ int, e *Event) (*cohereEvent, bool) {
		return &s.ev, decodeCohere(e.Data, &s.ev)
	},
	typeOf: func(ev *cohereEvent, e *Event) string {
		if ev.typ == "" {
			return e.Name
		}
		return ev.typ
	},
	own: func(s *cohereState, k own, i int, _ *Event, typ string) {
		switch k {
		case ownEarly:
			s.a.flagOnce("cohere.order", i, typ, "%s before message-start", typ)
		case ownAgain:
			s.a.flag("cohere.order", i, "", "a second message-start in one stream")
		}
	},
	on: map[string]func(*cohereState, int, *Event, *cohereEvent){
		"message-start": func(s *cohereState, _ int, _ *Event, ev *cohereEvent) {
			s.m.ID = ev.id
			s.m.choice(0).Role = ev.role
		},
		"content-start":   (*cohereState).contentStart,
		"content-delta":   (*cohereState).contentDelta,
		"content-end":     (*cohereState).contentEnd,
		"tool-plan-delta": (*cohereState).planDelta,
		"tool-call-start": (*cohereState).callStart,
		"tool-call-delta": (*cohereState).callDelta,
		"tool-call-end":   (*cohereState).callEnd,
		"message-end":     (*cohereState).messageEnd,
	},
	finish: (*cohereState).finish,
}

// assembleCohere follows docs/PROTOCOLS.md#cohere (the cohere-python SDK's
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
	s := &cohereState{a: a, m: &a.Message, blocks: map[int]*cohereBlock{}}
	drive(a, &cohereFamily, se.Events, s, &cohereHandlers)
	return a
}

func (s *cohereState) contentStart(i int, e *Event, ev *cohereEvent) {
	idx := ev.index
	if _, dup := s.blocks[idx]; dup {
		s.a.flag("cohere.order", i, excerpt.Clip(e.Data, 100), "content block %d started twice", idx)
	}
	b := &cohereBlock{thinking: ev.contentType == "thinking"}
	b.text.add(ev.text, i)
	b.text.add(ev.thinking, i)
	b.born.Add(i)
	s.blocks[idx] = b
}

func (s *cohereState) contentDelta(i int, e *Event, ev *cohereEvent) {
	idx := ev.index
	b := s.blocks[idx]
	if b == nil {
		s.a.flag("cohere.order", i, excerpt.Clip(e.Data, 100), "content-delta for block %d, which never started", idx)
		b = &cohereBlock{}
		s.blocks[idx] = b
	}
	if b.ended {
		s.a.flag("cohere.order", i, excerpt.Clip(e.Data, 100), "content-delta for block %d after its content-end", idx)
	}
	if ev.hasThinking {
		b.thinking = true
		b.text.add(ev.thinking, i)
	} else {
		b.text.add(ev.text, i)
	}
	b.born.Add(i)
}

func (s *cohereState) contentEnd(i int, e *Event, ev *cohereEvent) {
	if b := s.blocks[ev.index]; b != nil {
		b.ended = true
	} else {
		s.a.flag("cohere.order", i, excerpt.Clip(e.Data, 100), "content-end for block %d, which never started", ev.index)
	}
}

func (s *cohereState) planDelta(i int, _ *Event, ev *cohereEvent) {
	s.plan.WriteString(ev.plan)
	s.planAt.Add(i)
}

func (s *cohereState) callStart(i int, e *Event, ev *cohereEvent) {
	idx := ev.index
	if _, dup := s.calls[idx]; dup {
		s.a.flag("cohere.order", i, excerpt.Clip(e.Data, 100), "tool call %d started twice", idx)
	}
	c := &cohereCall{id: ev.callID, name: ev.callName}
	c.args.WriteString(ev.args)
	c.born.Add(i)
	s.call(idx, c)
}

// call files c as tool call idx (the map is made on the first: most
// streams have none).
func (s *cohereState) call(idx int, c *cohereCall) {
	if s.calls == nil {
		s.calls = map[int]*cohereCall{}
	}
	s.calls[idx] = c
}

func (s *cohereState) callDelta(i int, e *Event, ev *cohereEvent) {
	idx := ev.index
	c := s.calls[idx]
	if c == nil {
		s.a.flag("cohere.order", i, excerpt.Clip(e.Data, 100), "tool-call-delta for call %d, which never started", idx)
		c = &cohereCall{}
		s.call(idx, c)
	}
	if c.ended {
		s.a.flag("cohere.order", i, excerpt.Clip(e.Data, 100), "tool-call-delta for call %d after its tool-call-end", idx)
	}
	c.args.WriteString(ev.args)
	c.born.Add(i)
}

func (s *cohereState) callEnd(i int, e *Event, ev *cohereEvent) {
	c := s.calls[ev.index]
	if c == nil {
		s.a.flag("cohere.order", i, excerpt.Clip(e.Data, 100), "tool-call-end for call %d, which never started", ev.index)
		return
	}
	c.ended = true
	if js := c.args.String(); js != "" && !gjson.Valid(js) {
		s.a.flag("tool.args-invalid-json", i, excerpt.Clip(js, 120), "tool call %s arguments are not valid JSON at tool-call-end", c.name)
	}
}

// messageEnd reads message-end: the finish reason, the usage and the
// in-band error.
func (s *cohereState) messageEnd(i int, e *Event, ev *cohereEvent) {
	m := s.m
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
		s.a.flag("stream.error-event", i, excerpt.Clip(e.Data, 160), "message-end carries an error (finish_reason %s): %s", fr, msg)
	}
}

// finish builds the message: the plan and thinking blocks as reasoning,
// the text blocks and the tool calls in index order.
func (s *cohereState) finish(n int) {
	ch := s.m.choice(0)
	if ch.Role == "" {
		ch.Role = "assistant"
	}
	var text spanText
	var reasoning strings.Builder
	reasoning.WriteString(s.plan.String())
	ch.ReasoningBorn = s.planAt
	for _, k := range slices.Sorted(maps.Keys(s.blocks)) {
		b := s.blocks[k]
		if b.thinking {
			reasoning.WriteString(b.text.String())
			ch.ReasoningBorn.join(b.born)
			continue
		}
		text.join(&b.text)
	}
	ch.Text, ch.Spans, ch.Reasoning = text.String(), text.spans, reasoning.String()
	for _, k := range slices.Sorted(maps.Keys(s.calls)) {
		c := s.calls[k]
		ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: k, ID: c.id, Name: c.name, Arguments: c.args.String(), Born: c.born})
		if !c.ended {
			s.a.flag("tool.unclosed", n-1, excerpt.Clip(c.args.String(), 80), "tool call %d (%s) never got tool-call-end: its arguments may be partial", k, c.name)
		}
	}
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

// cohereBody reads a Cohere v2 chat response (cohere-python's V2ChatResponse).
func cohereBody(a *Assembly, r gjson.Result) {
	a.Message.ID = r.Get("id").String()
	ch := a.Message.choice(0)
	msg := r.Get("message")
	ch.Role = msg.Get("role").String()
	ch.Reasoning = msg.Get("tool_plan").String()
	msg.Get("content").ForEach(func(_, c gjson.Result) bool {
		switch c.Get("type").String() {
		case "text":
			ch.Text += c.Get("text").String()
		case "thinking":
			ch.Reasoning += c.Get("thinking").String()
		}
		return true
	})
	msg.Get("tool_calls").ForEach(func(k, t gjson.Result) bool {
		ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: int(k.Int()), ID: t.Get("id").String(),
			Name: t.Get("function.name").String(), Arguments: t.Get("function.arguments").String()})
		return true
	})
	ch.FinishReason = r.Get("finish_reason").String()
	a.Message.Usage = cohereUsage(r.Get("usage"))
}

// cohereUsage reads a Cohere v2 usage object (a response's, or
// message-end's), its billed units left out: nil when it has no tokens.
func cohereUsage(u gjson.Result) *Usage {
	t := u.Get("tokens")
	if !t.IsObject() {
		return nil
	}
	var f [2]gjson.Result
	jsontext.GetFields(t, []string{"input_tokens", "output_tokens"}, f[:])
	return &Usage{Input: int(f[0].Int()), Output: int(f[1].Int())}
}
