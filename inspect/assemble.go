package inspect

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// anomaly is something an assembler noticed while following a protocol's
// rules; the detector with the same id turns it into a finding.
type anomaly struct {
	id       string
	event    int
	msg      string
	evidence string
}

// assembly is the result of assembling one side.
type assembly struct {
	msg       Message
	anomalies []anomaly
	// terminal is the index of the terminal event ([DONE], message_stop,
	// response.completed/failed/incomplete), or -1.
	terminal int
	// seen holds the ids of the anomalies recorded, for flagOnce.
	seen map[string]bool
}

func newAssembly(p Protocol) *assembly {
	return &assembly{msg: Message{Protocol: p}, terminal: -1}
}

func (a *assembly) flag(id string, ev int, evidence string, format string, args ...any) {
	if a.seen == nil {
		a.seen = map[string]bool{}
	}
	a.seen[id] = true
	a.anomalies = append(a.anomalies, anomaly{id: id, event: ev, msg: fmt.Sprintf(format, args...), evidence: evidence})
}

// flagOnce records an anomaly only if none with its id was recorded yet.
func (a *assembly) flagOnce(id string, ev int, evidence string, format string, args ...any) {
	if !a.seen[id] {
		a.flag(id, ev, evidence, format, args...)
	}
}

// assemble runs the protocol's assembly rules over a side's events.
func assemble(p Protocol, se *sideEvents) *assembly {
	switch p {
	case Chat:
		return assembleChat(se)
	case Responses:
		return assembleResponses(se)
	case Anthropic:
		return assembleAnthropic(se.Events, se.objEvents())
	}
	return newAssembly(Unknown)
}

// assembleBody assembles a non-stream JSON body (chat.completion, a
// Responses response object, or an Anthropic message). The result's Final
// is the message itself, as the body is what the server claims.
func assembleBody(p Protocol, body string) *assembly {
	a := newAssembly(p)
	if !gjson.Valid(body) {
		a.flag("payload.invalid-json", -1, clip(body, 120), "response body is not valid JSON")
		return a
	}
	r := gjson.Parse(body)
	if e := r.Get("error"); e.Exists() {
		a.msg.Error = errorText(e)
	}
	switch p {
	case Chat:
		a.msg.ID, a.msg.Model = r.Get("id").String(), r.Get("model").String()
		r.Get("choices").ForEach(func(_, c gjson.Result) bool {
			ch := a.msg.choice(int(c.Get("index").Int()))
			m := c.Get("message")
			ch.Role = m.Get("role").String()
			ch.Text = m.Get("content").String()
			ch.Refusal = m.Get("refusal").String()
			ch.Reasoning = m.Get("reasoning_content").String() + m.Get("reasoning").String()
			ch.FinishReason = c.Get("finish_reason").String()
			m.Get("tool_calls").ForEach(func(k, t gjson.Result) bool {
				ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: int(k.Int()), ID: t.Get("id").String(),
					Name: t.Get("function.name").String(), Arguments: t.Get("function.arguments").String()})
				return true
			})
			return true
		})
		a.msg.Usage = chatUsage(r.Get("usage"))
	case Responses:
		a.msg = *responsesFinal(r)
	case Anthropic:
		a.msg.ID, a.msg.Model = r.Get("id").String(), r.Get("model").String()
		ch := a.msg.choice(0)
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
		if u := r.Get("usage"); u.Exists() {
			a.msg.Usage = &Usage{Input: int(u.Get("input_tokens").Int()), Output: int(u.Get("output_tokens").Int()),
				CacheRead: int(u.Get("cache_read_input_tokens").Int()), CacheCreation: int(u.Get("cache_creation_input_tokens").Int())}
		}
	}
	a.msg.Status = "body"
	final := a.msg
	final.Final = nil
	a.msg.Final = &final
	return a
}

func chatUsage(u gjson.Result) *Usage {
	if !u.IsObject() {
		return nil
	}
	return &Usage{
		Input:     int(u.Get("prompt_tokens").Int()),
		Output:    int(u.Get("completion_tokens").Int()),
		Total:     int(u.Get("total_tokens").Int()),
		Reasoning: int(u.Get("completion_tokens_details.reasoning_tokens").Int()),
		CacheRead: int(u.Get("prompt_tokens_details.cached_tokens").Int()),
	}
}

// errorText renders an error object (or string) of any of the protocols.
func errorText(e gjson.Result) string {
	if e.Type == gjson.String {
		return e.String()
	}
	parts := []string{}
	for _, k := range []string{"type", "code", "message"} {
		if v := e.Get(k).String(); v != "" {
			parts = append(parts, v)
		}
	}
	if len(parts) == 0 {
		return clip(e.Raw, 200)
	}
	return strings.Join(parts, ": ")
}

// clip shortens s to at most n bytes (on a rune boundary), marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
