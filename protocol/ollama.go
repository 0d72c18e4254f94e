package protocol

import (
	"strings"

	"github.com/tidwall/gjson"
)

// ollamaState is the assembly state of an Ollama stream.
type ollamaState struct {
	a        *Assembly
	m        *Message
	ch       *Choice
	text     spanText
	thinking strings.Builder
	ev       ollamaEvent
}

// ollamaHandlers: a line has no type; line reads every one.
var ollamaHandlers = handlers[ollamaState, ollamaEvent]{
	decode: func(s *ollamaState, _ int, e *Event) (*ollamaEvent, bool) {
		return &s.ev, decodeOllama(e.Data, &s.ev)
	},
	each:   (*ollamaState).line,
	finish: (*ollamaState).finish,
}

// assembleOllama follows docs/PROTOCOLS.md#ollama with Ollama's own
// non-stream aggregation (writeChatResponse in Ollama's server/routes.go):
// message.content (or /api/generate's response) joined in order,
// message.thinking joined apart, every chunk's tool_calls appended whole
// (they are complete calls, not deltas), everything else from the last
// chunk. The line with "done": true ends the stream; an {"error": …} line
// is the in-band error and ends it too.
func assembleOllama(se *Side) *Assembly {
	a := newAssembly(Ollama)
	s := &ollamaState{a: a, m: &a.Message}
	s.ch = s.m.choice(0)
	drive(a, &ollamaFamily, se.Events, s, &ollamaHandlers)
	return a
}

// line reads one line: an error, or the model, role, text, thinking and
// tool calls, and the done line's reason and counts.
func (s *ollamaState) line(i int, e *Event, ev *ollamaEvent) {
	a, m, ch := s.a, s.m, s.ch
	if ev.errv != "" {
		a.inBandError(i, e.Data, ErrorText(ev.errv.Result()), "the stream carries an error")
		a.end(i)
		return
	}
	if ev.model != "" {
		m.Model = ev.model
	}
	if ev.role != "" {
		ch.Role = ev.role
	}
	s.text.add(ev.content, i)
	if ev.thinking != "" {
		s.thinking.WriteString(ev.thinking)
		ch.ReasoningBorn.Add(i)
	}
	if ev.calls != "" {
		ev.calls.Result().ForEach(func(_, c gjson.Result) bool {
			args := c.Get("function.arguments")
			raw := args.Raw
			if args.Type == gjson.String {
				raw = args.String()
			}
			ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: len(ch.ToolCalls), ID: c.Get("id").String(),
				Name: c.Get("function.name").String(), Arguments: raw})
			ch.ToolCalls[len(ch.ToolCalls)-1].Born.Add(i)
			return true
		})
	}
	if ev.done {
		a.end(i)
		m.Status = "done"
		ch.FinishReason = ev.doneReason
		ch.FinishBorn.Add(i)
		if ev.hasCounts {
			m.Usage = &Usage{Input: ev.in, Output: ev.out, Total: ev.in + ev.out}
			m.UsageBorn.Add(i)
		}
	}
}

func (s *ollamaState) finish(int) {
	ch := s.ch
	if ch.Role == "" {
		ch.Role = "assistant"
	}
	ch.Text, ch.Spans, ch.Reasoning = s.text.String(), s.text.spans, s.thinking.String()
}

// ollamaEvent is what one Ollama line says, decoded in one pass: /api/chat
// puts content, thinking and tool_calls under "message", /api/generate at
// the top level (content as "response").
type ollamaEvent struct {
	model, role, content, thinking string
	calls, errv                    RawJSON
	done, hasCounts                bool
	doneReason                     string
	in, out                        int
}

// decodeOllama reads an Ollama line into ev and reports whether it is
// valid JSON.
func decodeOllama(data string, ev *ollamaEvent) bool {
	*ev = ollamaEvent{}
	sc := scanOf(data)
	for k := range sc.Object() {
		switch k {
		case "model":
			ev.model = sc.Str()
		case "message":
			for k := range sc.Object() {
				switch k {
				case "role":
					ev.role = sc.Str()
				case "content":
					ev.content = sc.Str()
				case "thinking":
					ev.thinking = sc.Str()
				case "tool_calls":
					ev.calls = sc.rawJSON()
				default:
					sc.Skip()
				}
			}
		case "response":
			ev.content = sc.Str()
		case "thinking":
			ev.thinking = sc.Str()
		case "tool_calls":
			ev.calls = sc.rawJSON()
		case "done":
			ev.done = sc.True()
		case "done_reason":
			ev.doneReason = sc.Str()
		case "prompt_eval_count":
			ev.in, ev.hasCounts = int(sc.Int()), true
		case "eval_count":
			ev.out, ev.hasCounts = int(sc.Int()), true
		case "error":
			ev.errv = sc.rawJSON()
		default:
			sc.Skip()
		}
	}
	return sc.End()
}
