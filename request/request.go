package request

import (
	"slices"
	"strings"

	"github.com/seam-dev/seam/clients"
	"github.com/seam-dev/seam/internal/jsontext"
	"github.com/seam-dev/seam/protocol"
	"github.com/tidwall/gjson"
)

// Message is one message of a request's conversation, normalised across
// protocols.
type Message struct {
	Role      string
	Text      string
	ToolCalls []protocol.ToolCall
	// ToolCallID is the call a tool result answers.
	ToolCallID string
}

// Tool is what a request says about one tool it offers.
type Tool struct {
	Name string
	// Params maps each parameter's name to whether it is required.
	Params map[string]bool
	// Void is set when the tool declares no parameters at all.
	Void bool
	// Strict is set when no other parameter is allowed
	// (additionalProperties: false, or an XML catalogue).
	Strict bool
	// Source is where the request declares it: "tools" (its tools field)
	// or "system-prompt" (Obsidian Copilot's XML catalogue).
	Source string
	// Schema is the parameters' JSON schema as sent ("" for a catalogue).
	Schema string
}

// Request is what a request body says.
type Request struct {
	Model  string
	Stream bool
	// Messages is the conversation: the system prompt (system, or
	// Responses instructions) first, then each message, tool calls and
	// tool results included. An Anthropic tool_result block is a message
	// of its own, role "tool"; a Responses function call joins the
	// assistant message before it, as Chat Completions and Messages carry
	// calls.
	Messages []Message
	// Tools are the tools the request offers, by name.
	Tools map[string]*Tool
	// PrevResponse is a Responses request's previous_response_id: the
	// history it continues is that response's.
	PrevResponse string
	// Items is, for a Responses request with an input item list, its
	// history item by item (the instructions, then each input item: a
	// function call on its own rather than joined to the assistant
	// message before it); nil for other requests.
	Items []Message
}

// NativeTools reports whether the request declares tools in its tools
// field (the client calls them natively), not only as an XML catalogue in
// its prompt as Obsidian Copilot's XML era does. A nil Request has none.
func (r *Request) NativeTools() bool {
	if r == nil {
		return false
	}
	for _, t := range r.Tools {
		if t.Source == "tools" {
			return true
		}
	}
	return false
}

// Parse reads a Chat Completions, Responses or Anthropic Messages request
// body. A body that is not JSON, or of another shape, gives an empty
// Request. It reads the body once (see scan.go); a Reader reads requests
// that repeat each other's messages faster.
func Parse(body []byte) *Request {
	return parse(body, nil)
}

// parse reads body, recalling what rd has read before (nothing for a nil
// rd).
func parse(body []byte, rd *Reader) *Request {
	r := &Request{Tools: map[string]*Tool{}}
	if len(body) == 0 {
		return r
	}
	sc := jsontext.NewScanner(string(body))
	rc := rd.recaller(len(body))
	if !sc.Open('{') {
		return r // another value, or not JSON
	}
	var (
		seen          [8]bool
		system, tools gjson.Result
		instructions  string
		msgs          []Message
		input         []*Message
		inputText     string
		inputKind     byte // 's' a string, 'l' a list
	)
	for k := range sc.Members() {
		i := indexOf(k, "model", "stream", "previous_response_id", "system", "instructions", "messages", "input", "tools")
		if i < 0 || seen[i] {
			sc.Skip()
			continue
		}
		seen[i] = true
		switch i {
		case 0:
			r.Model = sc.Str()
		case 1:
			r.Stream = sc.Value().Result().Bool()
		case 2:
			r.PrevResponse = sc.Str()
		case 3:
			system = sc.Value().Result()
		case 4:
			instructions = sc.Str()
		case 5:
			msgs = scanMessages(&sc, nil, rc)
		case 6:
			switch sc.Peek() {
			case '"':
				inputKind, inputText = 's', sc.Str()
			case '[':
				inputKind = 'l'
				input, _ = scanInput(&sc, rc)
			default:
				sc.Skip()
			}
		case 7:
			tools = sc.Value().Result()
		}
	}
	if !sc.End() {
		return &Request{Tools: map[string]*Tool{}}
	}
	if system.Exists() {
		r.Messages = append(r.Messages, Message{Role: "system", Text: contentText(system)})
	}
	if instructions != "" {
		r.Messages = append(r.Messages, Message{Role: "system", Text: instructions})
	}
	r.Messages = append(r.Messages, msgs...)
	switch inputKind {
	case 's':
		r.Messages = append(r.Messages, Message{Role: "user", Text: inputText})
	case 'l':
		r.readInput(input, instructions)
	}
	r.Tools = rc.readTools(tools)
	if len(r.Tools) == 0 {
		r.readCatalogue()
	}
	return r
}

// appendMessage appends the message m of a messages list: a Chat
// Completions message, or an Anthropic one whose content blocks hold
// tool_use calls (assistant turns) and tool_result results (user turns,
// each a message of its own, after the turn's text).
func appendMessage(msgs []Message, m gjson.Result) []Message {
	mf := fields(m, "role", "content", "tool_call_id", "tool_calls")
	msg := Message{Role: mf[0].String(), Text: contentText(mf[1]), ToolCallID: mf[2].String()}
	mf[3].ForEach(func(k, tc gjson.Result) bool {
		msg.ToolCalls = append(msg.ToolCalls, protocol.ToolCall{Index: int(k.Int()), ID: tc.Get("id").String(), Name: tc.Get("function.name").String(), Arguments: tc.Get("function.arguments").String()})
		return true
	})
	var results []Message
	mf[1].ForEach(func(k, b gjson.Result) bool {
		switch b.Get("type").String() {
		case "tool_use":
			msg.ToolCalls = append(msg.ToolCalls, protocol.ToolCall{Index: int(k.Int()), ID: b.Get("id").String(), Name: b.Get("name").String(), Arguments: b.Get("input").Raw})
		case "tool_result":
			results = append(results, Message{Role: "tool", ToolCallID: b.Get("tool_use_id").String(), Text: contentText(b.Get("content"))})
		}
		return true
	})
	if len(results) > 0 && strings.TrimSpace(msg.Text) == "" {
		return append(msgs, results...)
	}
	msgs = append(msgs, msg)
	return append(msgs, results...)
}

// readInput takes a Responses request's input list, read item by item
// (nil for an item that carries no message), into Items and joins it
// into Messages.
func (r *Request) readInput(items []*Message, instructions string) {
	r.Items = []Message{}
	if instructions != "" {
		r.Items = append(r.Items, Message{Role: "system", Text: instructions})
	}
	for _, m := range items {
		if m == nil {
			continue
		}
		r.Items = append(r.Items, *m)
		if n := len(r.Messages); len(m.ToolCalls) > 0 && n > 0 && r.Messages[n-1].Role == "assistant" {
			// A function call joins the assistant message before it,
			// as Chat Completions and Messages carry calls.
			last := &r.Messages[n-1]
			last.ToolCalls = append(slices.Clip(last.ToolCalls), m.ToolCalls...)
		} else {
			r.Messages = append(r.Messages, *m)
		}
	}
}

// readTools reads a tools list, by name.
func readTools(tools gjson.Result) map[string]*Tool {
	out := map[string]*Tool{}
	tools.ForEach(func(_, t gjson.Result) bool {
		if tool := readTool(t); tool != nil {
			out[tool.Name] = tool
		}
		return true
	})
	return out
}

// readTool reads one entry of a tools list: a Chat Completions function
// ({function: {name, parameters}}), or a Responses or Anthropic tool
// ({name, parameters} or {name, input_schema}); nil when it names none.
func readTool(t gjson.Result) *Tool {
	name := t.Get("function.name").String()
	params := t.Get("function.parameters")
	if name == "" {
		name = t.Get("name").String()
		params = t.Get("parameters")
		if !params.Exists() {
			params = t.Get("input_schema")
		}
	}
	if name == "" {
		return nil
	}
	tool := &Tool{Name: name, Params: map[string]bool{}, Source: "tools", Schema: params.Raw}
	params.Get("properties").ForEach(func(k, _ gjson.Result) bool {
		tool.Params[k.String()] = false
		return true
	})
	params.Get("required").ForEach(func(_, k gjson.Result) bool {
		tool.Params[k.String()] = true
		return true
	})
	tool.Void = len(tool.Params) == 0
	tool.Strict = params.Get("additionalProperties").Type == gjson.False
	return tool
}

// readCatalogue reads the tools of the catalogue Obsidian Copilot's XML
// era put in its system prompt (clients.XMLCatalogue), or in the first
// user turn, which it also sent the prompt as: every parameter optional,
// no other allowed.
func (r *Request) readCatalogue() {
	add := func(text string) {
		for _, t := range clients.XMLCatalogue(text) {
			tool := &Tool{Name: t.Name, Params: map[string]bool{}, Strict: true, Source: "system-prompt", Void: len(t.Params) == 0}
			for _, p := range t.Params {
				tool.Params[p] = false
			}
			r.Tools[tool.Name] = tool
		}
	}
	for _, m := range r.Messages {
		if m.Role == "system" || m.Role == "developer" {
			add(m.Text)
		}
	}
	if len(r.Tools) > 0 {
		return
	}
	for _, m := range r.Messages {
		if strings.Contains(m.Text, "<parameters>") {
			add(m.Text)
		}
	}
}

// inputItem reads one item of a Responses input list as a message: a
// function call (an assistant message calling it), a function call's
// output (a tool result), or a message with a role. Items without a role
// (reasoning, item_reference) carry no message of the conversation.
func inputItem(it gjson.Result) (Message, bool) {
	f := fields(it, "type", "role", "content", "call_id", "name", "arguments", "output")
	switch f[0].String() {
	case "function_call":
		return Message{Role: "assistant", ToolCalls: []protocol.ToolCall{{ID: f[3].String(), Name: f[4].String(), Arguments: f[5].String()}}}, true
	case "function_call_output":
		return Message{Role: "tool", ToolCallID: f[3].String(), Text: contentText(f[6])}, true
	}
	if role := f[1].String(); role != "" {
		return Message{Role: role, Text: contentText(f[2])}, true
	}
	return Message{}, false
}

// contentText joins the text of a message content (a string or an array of
// parts).
func contentText(c gjson.Result) string {
	if c.Type == gjson.String {
		return c.String()
	}
	var b strings.Builder
	c.ForEach(func(_, p gjson.Result) bool {
		if t := p.Get("text"); t.Exists() {
			b.WriteString(t.String())
		}
		return true
	})
	return b.String()
}

// fields returns the values of the named keys of object r, each the first
// one of its name, reading r once (gjson's Get reads from the start for
// each key, which costs a request body of a long history dearly).
func fields(r gjson.Result, names ...string) []gjson.Result {
	out := make([]gjson.Result, len(names))
	r.ForEach(func(k, v gjson.Result) bool {
		key := k.String()
		for i, n := range names {
			if n == key && !out[i].Exists() {
				out[i] = v
			}
		}
		return true
	})
	return out
}
