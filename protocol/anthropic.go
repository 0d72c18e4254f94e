package protocol

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/internal/jsontext"
	"github.com/seam-dev/seam/internal/units"
	"github.com/tidwall/gjson"
)

type antBlock struct {
	index   int
	typ     string
	id      string
	name    string
	input   string          // input from content_block_start
	json    strings.Builder // joined partial_json
	text    spanText
	think   strings.Builder
	stopped bool
	born    Born
	// useID and result are a server tool result block's tool_use_id and
	// what it holds (see serverResult).
	useID, result string
}

// serverResult says what a server tool result block holds: its type and
// how many results it carries, or the error it reports.
func serverResult(typ string, content gjson.Result) string {
	switch {
	case content.IsArray():
		n := len(content.Array())
		return typ + " (" + strconv.Itoa(n) + " " + units.Noun(n, "result") + ")"
	case content.IsObject():
		if code := content.Get("error_code").String(); code != "" {
			return typ + " (error: " + code + ")"
		}
	}
	return typ
}

// antState is the assembly state of an Anthropic Messages stream.
type antState struct {
	a      *Assembly
	m      *Message
	objs   []ObjEvent
	blocks map[int]*antBlock
}

// anthropicHandlers route by the payload's type (the SDKs route by the SSE
// name, which the driver checks against it).
var anthropicHandlers = handlers[antState, ObjEvent]{
	decode: func(s *antState, i int, _ *Event) (*ObjEvent, bool) {
		r := &s.objs[i]
		return r, r.Valid
	},
	typeOf: func(r *ObjEvent, _ *Event) string { return r.Type },
	own:    (*antState).own,
	on: map[string]func(*antState, int, *Event, *ObjEvent){
		"message_start":       (*antState).messageStart,
		"content_block_start": (*antState).blockStart,
		"content_block_delta": (*antState).blockDelta,
		"content_block_stop":  (*antState).blockStop,
		"message_delta":       (*antState).messageDelta,
		"message_stop":        func(s *antState, _ int, _ *Event, _ *ObjEvent) { s.m.Status = "done" },
		"error": func(s *antState, i int, e *Event, r *ObjEvent) {
			s.a.inBandError(i, e.Data, ErrorText(r.Err.Result()), "the stream carries an error event")
		},
	},
	finish: (*antState).finish,
}

// AssembleAnthropic follows docs/PROTOCOLS.md#anthropic: blocks by index;
// text, thinking and input_json_delta fragments joined; tool input parsed
// at content_block_stop (an empty join keeps the start block's input, {});
// stop_reason and cumulative usage from message_delta; message_stop is
// terminal; ping is ignored; error events are reported. A server_tool_use
// or mcp_tool_use block is a tool Anthropic ran (its *_tool_result block
// follows in the same message): a ServerTool, not a tool call. objs are
// the events' decoded payloads (Side.ObjEvents).
func AssembleAnthropic(events []Event, objs []ObjEvent) *Assembly {
	a := newAssembly(Anthropic)
	s := &antState{a: a, m: &a.Message, objs: objs, blocks: map[int]*antBlock{}}
	drive(a, &anthropicFamily, events, s, &anthropicHandlers)
	return a
}

// own raises the Anthropic detectors anthropicFamily calls for: events the
// SDKs cannot route by their name, and events out of order.
func (s *antState) own(k own, i int, e *Event, typ string) {
	a := s.a
	switch k {
	case ownUnnamed:
		a.flagOnce("anthropic.event-name", i, excerpt.Clip(e.Data, 80), "events have no SSE event: name; the Anthropic SDKs route by name and produce nothing")
	case ownRenamed:
		a.flagOnce("anthropic.event-name", i, "event: "+e.Name+" / type: "+typ, "SSE event name differs from the JSON type: SDKs follow the name, VS Code the type")
	case ownEarly:
		a.flagOnce("anthropic.order", i, typ, "%s before message_start: the SDKs throw", typ)
	case ownAgain:
		a.flag("anthropic.order", i, "", "a second message_start in one stream")
	}
}

func (s *antState) messageStart(i int, _ *Event, r *ObjEvent) {
	m := s.m
	m.ID = r.Message.Get("id").String()
	m.Model = r.Message.Get("model").String()
	if u := anthropicUsage(r.Message.Get("usage")); u != nil {
		m.Usage = u
		m.UsageBorn.Add(i)
	}
}

func (s *antState) blockStart(i int, e *Event, r *ObjEvent) {
	idx := r.Index
	if _, dup := s.blocks[idx]; dup {
		s.a.flag("anthropic.order", i, excerpt.Clip(e.Data, 100), "block %d started twice", idx)
	}
	cb := r.ContentBlock
	b := &antBlock{index: idx, typ: cb.Get("type").String(), id: cb.Get("id").String(), name: cb.Get("name").String(),
		input: cb.Get("input").Raw}
	if strings.HasSuffix(b.typ, "_tool_result") && b.typ != "tool_result" {
		b.useID, b.result = cb.Get("tool_use_id").String(), serverResult(b.typ, cb.Get("content"))
	}
	b.text.add(cb.Get("text").String(), i)
	b.think.WriteString(cb.Get("thinking").String())
	b.born.Add(i)
	s.blocks[idx] = b
}

func (s *antState) blockDelta(i int, e *Event, r *ObjEvent) {
	idx := r.Index
	b := s.blocks[idx]
	if b == nil {
		s.a.flag("anthropic.order", i, excerpt.Clip(e.Data, 100), "delta for block %d, which never started", idx)
		b = &antBlock{index: idx}
		s.blocks[idx] = b
	}
	if b.stopped {
		s.a.flag("anthropic.order", i, excerpt.Clip(e.Data, 100), "delta for block %d after its content_block_stop", idx)
	}
	b.born.Add(i)
	switch r.DeltaType {
	case "text_delta":
		b.text.add(r.DeltaText, i)
	case "thinking_delta":
		b.think.WriteString(r.DeltaThinking)
	case "input_json_delta":
		b.json.WriteString(r.DeltaPartial)
	}
}

func (s *antState) blockStop(i int, e *Event, r *ObjEvent) {
	idx := r.Index
	b := s.blocks[idx]
	if b == nil {
		s.a.flag("anthropic.order", i, excerpt.Clip(e.Data, 100), "stop for block %d, which never started", idx)
		return
	}
	b.stopped = true
	b.born.Add(i)
	if js := b.json.String(); b.typ == "tool_use" && js != "" && !gjson.Valid(js) {
		s.a.flag("tool.args-invalid-json", i, excerpt.Clip(js, 120), "tool_use %s input is not valid JSON at content_block_stop", b.name)
	}
}

func (s *antState) messageDelta(i int, _ *Event, r *ObjEvent) {
	m := s.m
	if sr := r.Delta.Get("stop_reason").String(); sr != "" {
		ch := m.choice(0)
		ch.FinishReason = sr
		ch.FinishBorn.Add(i)
	}
	if u := r.Usage; u.IsObject() {
		m.UsageBorn.Add(i)
		if m.Usage == nil {
			m.Usage = &Usage{}
		}
		m.Usage.Output = int(u.Get("output_tokens").Int())
		if v := u.Get("input_tokens"); v.Exists() && v.Type != gjson.Null {
			m.Usage.Input = int(v.Int())
		}
	}
}

// finish builds the message from the blocks in index order, flagging the
// blocks never stopped.
func (s *antState) finish(n int) {
	a, m, blocks := s.a, s.m, s.blocks
	ch := m.choice(0)
	ch.Role = "assistant"
	var text spanText
	var reasoning strings.Builder
	results := map[string]string{} // server tool results by tool_use_id
	for _, b := range blocks {
		if b.useID != "" {
			results[b.useID] = b.result
		}
	}
	for _, k := range slices.Sorted(maps.Keys(blocks)) {
		b := blocks[k]
		switch b.typ {
		case "server_tool_use", "mcp_tool_use":
			// Run by Anthropic (web search, web fetch, code execution, an
			// MCP server): its result follows as a *_tool_result block in
			// this same message, and the client answers nothing.
			input := b.json.String()
			if input == "" {
				input = b.input
			}
			ch.ServerTools = append(ch.ServerTools, ServerTool{Index: k, ID: b.id, Name: b.name, Input: input, Result: results[b.id], Born: b.born})
			if !b.stopped {
				a.flag("anthropic.block-unclosed", n-1, excerpt.Clip(input, 80), "%s block %d (%s) never got content_block_stop", b.typ, k, b.name)
			}
		case "tool_use":
			args := b.json.String()
			if args == "" {
				args = b.input
				if args == "" {
					args = "{}"
				}
			}
			ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: k, ID: b.id, Name: b.name, Arguments: args, Born: b.born})
			if !b.stopped {
				a.flag("anthropic.block-unclosed", n-1, excerpt.Clip(args, 80), "tool_use block %d (%s) never got content_block_stop (stop_reason %q): its input is partial", k, b.name, ch.FinishReason)
			}
		case "thinking":
			reasoning.WriteString(b.think.String())
			ch.ReasoningBorn.join(b.born)
		default:
			text.join(&b.text)
			if !b.stopped {
				a.flag("anthropic.block-unclosed", n-1, "", "block %d never got content_block_stop", k)
			}
		}
	}
	ch.Text, ch.Spans, ch.Reasoning = text.String(), text.spans, reasoning.String()
}

// anthropicBody reads an Anthropic message body.
func anthropicBody(a *Assembly, r gjson.Result) {
	a.Message.ID, a.Message.Model = r.Get("id").String(), r.Get("model").String()
	ch := a.Message.choice(0)
	ch.Role = "assistant"
	r.Get("content").ForEach(func(k, b gjson.Result) bool {
		switch b.Get("type").String() {
		case "text":
			ch.Text += b.Get("text").String()
		case "thinking":
			ch.Reasoning += b.Get("thinking").String()
		case "tool_use":
			ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: int(k.Int()), ID: b.Get("id").String(),
				Name: b.Get("name").String(), Arguments: b.Get("input").Raw})
		}
		return true
	})
	ch.FinishReason = r.Get("stop_reason").String()
	a.Message.Usage = anthropicUsage(r.Get("usage"))
}

// anthropicUsage reads an Anthropic usage object (a message's, or
// message_start's), nil when there is none.
func anthropicUsage(u gjson.Result) *Usage {
	if !u.IsObject() {
		return nil
	}
	var f [4]gjson.Result
	jsontext.GetFields(u, []string{"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"}, f[:])
	return &Usage{Input: int(f[0].Int()), Output: int(f[1].Int()), CacheRead: int(f[2].Int()), CacheCreation: int(f[3].Int())}
}
