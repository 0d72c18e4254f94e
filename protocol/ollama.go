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
	var text, thinking strings.Builder
	events := se.Events
	for i := range events {
		e := &events[i]
		if !gjson.Valid(e.Data) {
			a.flag("payload.invalid-json", i, excerpt.Clip(e.Data, 120), "line is not valid JSON: Ollama's clients fail on it")
			continue
		}
		if a.Terminal >= 0 {
			a.flag("stream.after-end", i, excerpt.Clip(e.Data, 120), "line after the done line, which ends an Ollama stream")
		}
		r := gjson.Parse(e.Data)
		if errv := r.Get("error"); errv.Exists() {
			m.Error = ErrorText(errv)
			a.flag("stream.error-event", i, excerpt.Clip(e.Data, 160), "the stream carries an error: %s", m.Error)
			if a.Terminal < 0 {
				a.Terminal = i
			}
			continue
		}
		if mo := r.Get("model").String(); mo != "" {
			m.Model = mo
		}
		msg := r.Get("message")
		content, think, calls := msg.Get("content"), msg.Get("thinking"), msg.Get("tool_calls")
		if !msg.Exists() {
			content, think, calls = r.Get("response"), r.Get("thinking"), r.Get("tool_calls")
		}
		if role := msg.Get("role").String(); role != "" {
			ch.Role = role
		}
		if t := content.String(); t != "" {
			ch.Spans = append(ch.Spans, Span{At: text.Len(), Event: i})
			text.WriteString(t)
		}
		thinking.WriteString(think.String())
		calls.ForEach(func(_, c gjson.Result) bool {
			args := c.Get("function.arguments")
			raw := args.Raw
			if args.Type == gjson.String {
				raw = args.String()
			}
			ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: len(ch.ToolCalls), ID: c.Get("id").String(),
				Name: c.Get("function.name").String(), Arguments: raw})
			return true
		})
		if r.Get("done").Bool() {
			if a.Terminal < 0 {
				a.Terminal = i
			}
			m.Status = "done"
			ch.FinishReason = r.Get("done_reason").String()
			if in, out := r.Get("prompt_eval_count"), r.Get("eval_count"); in.Exists() || out.Exists() {
				m.Usage = &Usage{Input: int(in.Int()), Output: int(out.Int()), Total: int(in.Int() + out.Int())}
			}
		}
	}
	if a.Terminal < 0 && len(events) > 0 {
		a.flag("stream.no-terminal", len(events)-1, "", `no line with "done": true: the stream was cut`)
	}
	if ch.Role == "" {
		ch.Role = "assistant"
	}
	ch.Text, ch.Reasoning = text.String(), thinking.String()
	return a
}
