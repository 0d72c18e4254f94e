package inspect

import (
	"bytes"
	"strings"

	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// Client names accepted by ClientByName and used in ClientResult.Client.
const (
	ClientSpec         = "spec"
	ClientVSCode       = "vscode"
	ClientObsidian     = "obsidian"
	ClientOpenAINode   = "openai-node"
	ClientOpenAIPython = "openai-python"
)

// Clients lists the emulated clients in report order. "spec" is the
// protocol's own assembly rules (protocols.md §3), the baseline.
func Clients() []string {
	return []string{ClientSpec, ClientVSCode, ClientObsidian, ClientOpenAINode, ClientOpenAIPython}
}

// ClientResult is what one client ends up with after reading a stream.
type ClientResult struct {
	Client string `json:"client"`
	// Rule summarises the assembly rule the emulator follows.
	Rule         string     `json:"rule"`
	Text         string     `json:"text"`
	Reasoning    string     `json:"reasoning,omitempty"`
	Refusal      string     `json:"refusal,omitempty"`
	ToolCalls    []ToolCall `json:"tool_calls,omitempty"`
	FinishReason string     `json:"finish_reason,omitempty"`
	// Error is what the client reports instead of (or besides) a result.
	Error string `json:"error,omitempty"`
	// XMLCalls and Display are set for Obsidian: the calls parseXMLToolCalls
	// reads from the text, and the text the chat view shows.
	XMLCalls []XMLToolCall `json:"xml_calls,omitempty"`
	Display  *string       `json:"display,omitempty"`
}

// Disagreement is one field on which clients end up with different values.
type Disagreement struct {
	Field  string        `json:"field"`
	Values []ClientValue `json:"values"`
}

// ClientValue is one client's value for a field.
type ClientValue struct {
	Client string `json:"client"`
	Value  string `json:"value"`
}

// emulateClients runs every client emulator over one side.
func emulateClients(s *SideReport) []ClientResult {
	m := s.Message
	spec := ClientResult{Client: ClientSpec, Rule: "protocols.md §3: " + string(m.Protocol) + " assembly rules", Error: m.Error}
	if len(m.Choices) > 0 {
		c := m.Choices[0]
		spec.Text, spec.Reasoning, spec.Refusal, spec.ToolCalls, spec.FinishReason = c.Text, c.Reasoning, c.Refusal, c.ToolCalls, c.FinishReason
	}
	var body []byte
	if s.ev != nil {
		body = (&tape.SideData{Chunks: s.ev.chunks}).Body()
	}
	events := []Event(nil)
	if s.ev != nil {
		events = s.ev.Events
	}
	// Spec-following SDK parsers discard an unterminated last event.
	terminated := events
	if n := len(events); n > 0 && !events[n-1].Terminated {
		terminated = events[:n-1]
	}
	out := []ClientResult{spec}
	if !s.Stream {
		for _, name := range Clients()[1:] {
			r := spec
			r.Client, r.Rule = name, "non-stream body: read as is"
			if name == ClientObsidian {
				r = obsidianResult(r.Text, spec)
			}
			out = append(out, r)
		}
		return out
	}
	switch m.Protocol {
	case Chat:
		out = append(out, vscodeChat(body), obsidianResult(nodeChat(terminated).Text, spec), nodeChat(terminated), pythonChat(terminated))
	case Responses:
		vs := vscodeResponses(events)
		node := sdkResponses(ClientOpenAINode, terminated)
		out = append(out, vs, obsidianResult(spec.Text, spec), node, sdkResponses(ClientOpenAIPython, terminated))
	case Anthropic:
		out = append(out, vscodeAnthropic(events), obsidianResult(spec.Text, spec), sdkAnthropic(ClientOpenAINode, terminated), sdkAnthropic(ClientOpenAIPython, terminated))
	default:
		return out
	}
	return out
}

// obsidianResult emulates Obsidian Copilot's XML era (3.0.0–3.1.5,
// protocols.md §1.3, §1.6, §1.7): the text is the openai-node/LangChain
// concatenation of choices[0] content; tool calls come only from
// parseXMLToolCalls over that text (structured tool calls are ignored); the
// view shows stripToolCallXML of it.
func obsidianResult(text string, spec ClientResult) ClientResult {
	r := ClientResult{Client: ClientObsidian, Rule: "protocols.md §1.3/§1.7: parseXMLToolCalls and stripToolCallXML over the assembled text; structured tool calls ignored",
		Text: text, FinishReason: spec.FinishReason, Error: spec.Error}
	if spec.Reasoning != "" {
		r.Text = "\n<think>" + spec.Reasoning + "</think>" + text
	}
	r.XMLCalls = ParseXMLToolCalls(r.Text)
	d := StripToolCallXML(r.Text)
	r.Display = &d
	for _, c := range r.XMLCalls {
		r.ToolCalls = append(r.ToolCalls, ToolCall{Index: len(r.ToolCalls), Name: c.Name, Arguments: marshalArgs(c.Args)})
	}
	return r
}

// vscodeChat emulates VS Code Copilot Chat's SSEProcessor (protocols.md
// §2.1–§2.5) over the raw body: lines split on "\n" only; a last line
// without "\n" is never processed; ':' lines skipped; the first 5 characters
// of any other line removed and the rest trimmed; [DONE] stops reading;
// unparseable lines skipped. Per choice 0: one trailing "\r" removed from
// each content delta; content in a delta that has tool_calls dropped; a " "
// appended to existing text when the first named tool call starts; tool
// calls matched by id, else the last call, name overwritten, arguments
// joined; reasoning_content and reasoning ignored; tool calls emitted only
// with finish_reason tool_calls or stop; a finished choice ignores later
// chunks.
func vscodeChat(body []byte) ClientResult {
	r := ClientResult{Client: ClientVSCode, Rule: "protocols.md §2.1–§2.5: SSEProcessor, line based, tool calls by id"}
	finished := false
	var calls []ToolCall
	sawDone := false
	for len(body) > 0 {
		nl := bytes.IndexByte(body, '\n')
		if nl < 0 {
			break // the unterminated last line is never processed
		}
		line := body[:nl]
		body = body[nl+1:]
		if len(line) == 0 || line[0] == ':' {
			continue
		}
		if len(line) < 5 {
			line = nil
		} else {
			line = line[5:]
		}
		payload := jsTrim(string(line))
		if payload == "[DONE]" {
			sawDone = true
			break
		}
		if !gjson.Valid(payload) {
			continue
		}
		p := gjson.Parse(payload)
		ch := p.Get("choices")
		if !ch.Exists() || ch.Type == gjson.Null {
			if e := p.Get("error"); e.Exists() {
				r.Error, r.FinishReason = errorText(e), "error"
				finished = true
			}
			continue
		}
		ch.ForEach(func(_, c gjson.Result) bool {
			if c.Get("index").Int() != 0 || finished {
				return true
			}
			d := c.Get("delta")
			tcs := d.Get("tool_calls")
			if tcs.Exists() && tcs.Type != gjson.Null {
				tcs.ForEach(func(_, tc gjson.Result) bool {
					id := tc.Get("id").String()
					name := tc.Get("function.name").String()
					var cur *ToolCall
					if id != "" {
						for i := range calls {
							if calls[i].ID == id {
								cur = &calls[i]
							}
						}
					} else if len(calls) > 0 {
						cur = &calls[len(calls)-1]
					}
					if cur == nil || (id != "" && cur.ID != id) {
						if len(calls) == 0 && name != "" && r.Text != "" {
							r.Text += " "
						}
						calls = append(calls, ToolCall{Index: len(calls)})
						cur = &calls[len(calls)-1]
					}
					if id != "" {
						cur.ID = id
					}
					if name != "" {
						cur.Name = name
					}
					cur.Arguments += tc.Get("function.arguments").String()
					return true
				})
			} else if t := d.Get("content").String(); t != "" {
				r.Text += strings.TrimSuffix(t, "\r")
			}
			for _, k := range []string{"cot_summary", "reasoning_text", "thinking"} {
				r.Reasoning += d.Get(k).String()
			}
			r.Refusal += d.Get("refusal").String()
			if fr := c.Get("finish_reason").String(); fr != "" {
				r.FinishReason = fr
				finished = true
			}
			return true
		})
	}
	if r.FinishReason == "" {
		r.FinishReason = "Iteration Done"
		if sawDone {
			r.FinishReason = "DONE"
		}
	}
	if r.FinishReason == "tool_calls" || r.FinishReason == "stop" {
		r.ToolCalls = calls
	} else if len(calls) > 0 {
		r.Error = joinErr(r.Error, "tool calls dropped (finish_reason "+r.FinishReason+")")
	}
	return r
}

// vscodeResponses emulates VS Code's OpenAIResponsesProcessor (protocols.md
// §2.7): the JSON type wins over the event name; every output_text.delta is
// appended whatever its indexes; tool calls are taken from
// output_item.done items; response.completed re-reads the text from
// response.output; failed or incomplete responses produce no completion; a
// JSON parse error rejects the whole response.
func vscodeResponses(events []Event) ClientResult {
	r := ClientResult{Client: ClientVSCode, Rule: "protocols.md §2.7: text from all output_text deltas, then response.output; calls from output_item.done"}
	completed := false
	for _, e := range events {
		if !e.Terminated {
			break
		}
		if !gjson.Valid(e.Data) {
			return ClientResult{Client: r.Client, Rule: r.Rule, Error: "response rejected: invalid JSON in event data"}
		}
		p := gjson.Parse(e.Data)
		switch p.Get("type").String() {
		case "response.output_text.delta":
			r.Text += p.Get("delta").String()
		case "response.output_item.done":
			if it := p.Get("item"); it.Get("type").String() == "function_call" {
				r.ToolCalls = append(r.ToolCalls, ToolCall{Index: int(p.Get("output_index").Int()), ID: it.Get("call_id").String(), Name: it.Get("name").String(), Arguments: it.Get("arguments").String()})
			}
		case "response.completed":
			completed = true
			r.FinishReason = "stop"
			fin := responsesFinal(p.Get("response"))
			r.Text = fin.Text() + fin.Choices[0].Refusal
		case "error":
			r.Error = joinErr(r.Error, errorText(p.Get("error")))
		}
	}
	if !completed {
		r.Error = joinErr(r.Error, "no completion (no response.completed)")
		r.Text, r.ToolCalls = "", nil
	}
	return r
}

// vscodeAnthropic emulates VS Code's AnthropicMessagesProcessor (protocols.md
// §2.8): type from JSON, else the event name; text appended; " " added when a
// tool_use block starts after text; empty partial_json skipped; each tool call
// emitted at content_block_stop with the raw joined arguments ("" when none);
// the completion is returned at message_stop only.
func vscodeAnthropic(events []Event) ClientResult {
	r := ClientResult{Client: ClientVSCode, Rule: "protocols.md §2.8: Messages processor, raw arguments, completion at message_stop"}
	type blk struct {
		tc   ToolCall
		tool bool
	}
	blocks := map[int]*blk{}
	stopped := false
	var stop string
	for _, e := range events {
		if !e.Terminated || isDone(e.Data) || e.Data == "" {
			continue
		}
		if !gjson.Valid(e.Data) {
			return ClientResult{Client: r.Client, Rule: r.Rule, Error: "response rejected: invalid JSON in event data"}
		}
		p := gjson.Parse(e.Data)
		typ := p.Get("type").String()
		if typ == "" {
			typ = e.Name
		}
		idx := int(p.Get("index").Int())
		switch typ {
		case "content_block_start":
			cb := p.Get("content_block")
			if cb.Get("type").String() == "tool_use" {
				if r.Text != "" {
					r.Text += " "
				}
				blocks[idx] = &blk{tc: ToolCall{Index: idx, ID: cb.Get("id").String(), Name: cb.Get("name").String()}, tool: true}
			}
		case "content_block_delta":
			d := p.Get("delta")
			switch d.Get("type").String() {
			case "text_delta":
				r.Text += d.Get("text").String()
			case "thinking_delta":
				r.Reasoning += d.Get("thinking").String()
			case "input_json_delta":
				if b := blocks[idx]; b != nil {
					b.tc.Arguments += d.Get("partial_json").String()
				}
			}
		case "content_block_stop":
			if b := blocks[idx]; b != nil && b.tool {
				r.ToolCalls = append(r.ToolCalls, b.tc)
				b.tool = false
			}
		case "message_delta":
			if s := p.Get("delta.stop_reason").String(); s != "" {
				stop = s
			}
		case "message_stop":
			stopped = true
		case "error":
			r.Error = joinErr(r.Error, errorText(p.Get("error")))
		}
	}
	switch {
	case !stopped:
		r.Error = joinErr(r.Error, "no completion (no message_stop)")
		r.Text, r.ToolCalls = "", nil
	case stop == "refusal":
		r.FinishReason = "DONE"
	case stop == "max_tokens" || stop == "model_context_window_exceeded":
		r.FinishReason = "length"
	default:
		r.FinishReason = "stop"
	}
	return r
}

// nodeChat emulates openai-node's ChatCompletionStream accumulation
// (protocols.md §3.2, tag v5.0.0): choices by index; content and refusal
// joined (also beside tool_calls); tool calls in a sparse array by index,
// id and name overwritten, arguments joined; a missing finish_reason throws
// at finalisation; the unterminated last event is not dispatched.
func nodeChat(events []Event) ClientResult {
	r := ClientResult{Client: ClientOpenAINode, Rule: "protocols.md §3.2: openai-node, tool calls keyed by index, name/id overwritten"}
	var calls []*ToolCall
	var text strings.Builder
	for _, e := range events {
		if isDone(e.Data) {
			break
		}
		if e.Name == "error" {
			r.Error = joinErr(r.Error, "APIError: "+clip(e.Data, 120))
			break
		}
		if !gjson.Valid(e.Data) {
			r.Error = joinErr(r.Error, "SyntaxError: could not parse event data")
			break
		}
		p := gjson.Parse(e.Data)
		p.Get("choices").ForEach(func(_, c gjson.Result) bool {
			if c.Get("index").Int() != 0 {
				return true
			}
			d := c.Get("delta")
			text.WriteString(d.Get("content").String())
			r.Refusal += d.Get("refusal").String()
			d.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
				i := int(tc.Get("index").Int())
				for len(calls) <= i {
					calls = append(calls, nil)
				}
				if calls[i] == nil {
					calls[i] = &ToolCall{Index: i}
				}
				if id := tc.Get("id").String(); id != "" {
					calls[i].ID = id
				}
				if n := tc.Get("function.name").String(); n != "" {
					calls[i].Name = n
				}
				calls[i].Arguments += tc.Get("function.arguments").String()
				return true
			})
			if fr := c.Get("finish_reason").String(); fr != "" {
				r.FinishReason = fr
			}
			return true
		})
	}
	r.Text = text.String()
	for i, c := range calls {
		if c == nil {
			r.Error = joinErr(r.Error, "tool_calls["+itoa(i)+"] is a hole (null)")
			continue
		}
		r.ToolCalls = append(r.ToolCalls, *c)
	}
	if r.FinishReason == "" {
		r.Error = joinErr(r.Error, "missing finish_reason for choice 0")
	}
	return r
}

// pythonChat emulates openai-python's accumulate_delta (protocols.md §3.2):
// every string is concatenated (role, id and name included), index and type
// overwritten, and a tool delta whose index is not yet a list position is
// inserted there rather than placed at the index, so indexes that do not
// start at 0 split one call into two entries. finish_reason length or
// content_filter makes get_final_completion() raise.
func pythonChat(events []Event) ClientResult {
	r := ClientResult{Client: ClientOpenAIPython, Rule: "protocols.md §3.2: openai-python accumulate_delta, strings concatenated, list insert by position"}
	var calls []*ToolCall
	haveList := false
	for _, e := range events {
		if strings.HasPrefix(e.Data, "[DONE]") {
			break
		}
		if e.Name == "error" || !gjson.Valid(e.Data) {
			r.Error = joinErr(r.Error, "APIError or JSONDecodeError on event "+itoa(e.Index))
			break
		}
		p := gjson.Parse(e.Data)
		p.Get("choices").ForEach(func(_, c gjson.Result) bool {
			if c.Get("index").Int() != 0 {
				return true
			}
			d := c.Get("delta")
			r.Text += d.Get("content").String()
			r.Refusal += d.Get("refusal").String()
			tcs := d.Get("tool_calls")
			if tcs.IsArray() && !haveList {
				haveList = true
				tcs.ForEach(func(_, tc gjson.Result) bool {
					calls = append(calls, pyEntry(tc, nil))
					return true
				})
			} else if tcs.IsArray() {
				tcs.ForEach(func(_, tc gjson.Result) bool {
					i := int(tc.Get("index").Int())
					if i < len(calls) && i >= 0 {
						pyEntry(tc, calls[i])
					} else {
						at := min(max(i, 0), len(calls))
						calls = append(calls[:at], append([]*ToolCall{pyEntry(tc, nil)}, calls[at:]...)...)
					}
					return true
				})
			}
			if fr := c.Get("finish_reason").String(); fr != "" {
				r.FinishReason = fr
			}
			return true
		})
	}
	for _, c := range calls {
		r.ToolCalls = append(r.ToolCalls, *c)
	}
	if r.FinishReason == "length" || r.FinishReason == "content_filter" {
		r.Error = joinErr(r.Error, "get_final_completion() raises (finish_reason "+r.FinishReason+")")
	}
	return r
}

func pyEntry(tc gjson.Result, into *ToolCall) *ToolCall {
	if into == nil {
		into = &ToolCall{}
	}
	into.Index = int(tc.Get("index").Int())
	into.ID += tc.Get("id").String()
	into.Name += tc.Get("function.name").String()
	into.Arguments += tc.Get("function.arguments").String()
	return into
}

// sdkResponses emulates the openai-node and openai-python Responses
// accumulators (protocols.md §3.3): the result is the response.completed
// payload; without it there is none ("Didn't receive a response.completed
// event").
func sdkResponses(client string, events []Event) ClientResult {
	r := ClientResult{Client: client, Rule: "protocols.md §3.3: the final response is response.completed.response"}
	for _, e := range events {
		if !gjson.Valid(e.Data) {
			continue
		}
		p := gjson.Parse(e.Data)
		switch p.Get("type").String() {
		case "response.completed":
			fin := responsesFinal(p.Get("response"))
			c := fin.Choices[0]
			r.Text, r.Reasoning, r.Refusal, r.ToolCalls, r.FinishReason = c.Text, c.Reasoning, c.Refusal, c.ToolCalls, c.FinishReason
			return r
		case "error":
			r.Error = joinErr(r.Error, errorText(p.Get("error")))
		}
	}
	r.Error = joinErr(r.Error, "didn't receive a response.completed event")
	return r
}

// sdkAnthropic emulates the Anthropic SDKs (protocols.md §3.4, §4.1), which
// the openai-* names stand for on an Anthropic stream: events are routed by
// their SSE event name, so events without a known name are dropped; the
// unterminated last event is not dispatched.
func sdkAnthropic(client string, events []Event) ClientResult {
	named := make([]Event, 0, len(events))
	for _, e := range events {
		if protocolOfName(e.Name) == Anthropic || e.Name == "ping" || e.Name == "error" {
			named = append(named, e)
		}
	}
	a := assembleAnthropic(named)
	r := ClientResult{Client: client, Rule: "protocols.md §3.4: Anthropic SDK, routed by SSE event name", Error: a.msg.Error}
	c := a.msg.Choices[0]
	r.Text, r.Reasoning, r.ToolCalls, r.FinishReason = c.Text, c.Reasoning, c.ToolCalls, c.FinishReason
	if a.terminal < 0 {
		r.Error = joinErr(r.Error, "stream ended without message_stop")
	}
	return r
}

func joinErr(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// disagreements lists the fields on which the clients' results differ.
func disagreements(rs []ClientResult) []Disagreement {
	fields := []struct {
		name string
		get  func(ClientResult) string
	}{
		{"text", func(r ClientResult) string { return r.Text }},
		{"tool_calls", func(r ClientResult) string { return renderCalls(r.ToolCalls) }},
		{"finish_reason", func(r ClientResult) string { return r.FinishReason }},
		{"error", func(r ClientResult) string { return r.Error }},
	}
	var out []Disagreement
	for _, f := range fields {
		vals := make([]ClientValue, 0, len(rs))
		same := true
		for _, r := range rs {
			v := f.get(r)
			if len(vals) > 0 && v != vals[0].Value {
				same = false
			}
			vals = append(vals, ClientValue{Client: r.Client, Value: v})
		}
		if !same {
			out = append(out, Disagreement{Field: f.name, Values: vals})
		}
	}
	return out
}

func renderCalls(cs []ToolCall) string {
	var b strings.Builder
	for i, c := range cs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(c.Name)
		b.WriteByte('(')
		b.WriteString(c.Arguments)
		b.WriteByte(')')
		if c.ID != "" {
			b.WriteString(" #" + c.ID)
		}
	}
	return b.String()
}
