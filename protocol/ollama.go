package protocol

import (
	"strings"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/tidwall/gjson"
)

// assembleOllama follows providers.md §3 with Ollama's own non-stream
// aggregation (OLL:server/routes.go writeChatResponse): message.content
// (or /api/generate's response) joined in order, message.thinking joined
// apart, every chunk's tool_calls appended whole (they are complete calls,
// not deltas), everything else from the last chunk. The line with "done":
// true ends the stream; an {"error": …} line is the in-band error and ends
// it too.
func assembleOllama(se *Side) *Assembly {
	a := newAssembly(Ollama)
	m := &a.Message
	ch := m.choice(0)
	var text spanText
	var thinking strings.Builder
	events := se.Events
	var ev ollamaEvent
	for i := range events {
		e := &events[i]
		if !decodeOllama(e.Data, &ev) {
			a.flag("payload.invalid-json", i, excerpt.Clip(e.Data, 120), "line is not valid JSON: Ollama's clients fail on it")
			continue
		}
		if a.Terminal >= 0 {
			a.flag("stream.after-end", i, excerpt.Clip(e.Data, 120), "line after the done line, which ends an Ollama stream")
		}
		if ev.errv != "" {
			a.inBandError(i, e.Data, ErrorText(ev.errv.Result()), "the stream carries an error")
			a.end(i)
			continue
		}
		if ev.model != "" {
			m.Model = ev.model
		}
		if ev.role != "" {
			ch.Role = ev.role
		}
		text.add(ev.content, i)
		if ev.thinking != "" {
			thinking.WriteString(ev.thinking)
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
	a.noTerminal(len(events), `no line with "done": true: the stream was cut`)
	if ch.Role == "" {
		ch.Role = "assistant"
	}
	ch.Text, ch.Spans, ch.Reasoning = text.String(), text.spans, thinking.String()
	return a
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
