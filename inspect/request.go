package inspect

import (
	"slices"
	"strings"

	"github.com/seam-dev/seam/clients"
	"github.com/seam-dev/seam/protocol"
	"github.com/tidwall/gjson"
)

// reqMsg is one message of a captured request, normalised across protocols.
type reqMsg struct {
	role       string
	text       string
	toolCalls  []protocol.ToolCall
	toolCallID string // for tool results
}

// toolSchema is what a request says about one tool.
type toolSchema struct {
	name     string
	params   map[string]bool // parameter name -> required
	void     bool            // declares no parameters at all
	strictKw bool            // additionalProperties:false or an XML catalogue
	source   string          // "tools" or "system-prompt"
	schema   string          // the parameters' JSON schema as sent ("" for a catalogue)
}

// requestInfo is the part of a request body the detectors read.
type requestInfo struct {
	model    string
	stream   bool
	messages []reqMsg
	tools    map[string]*toolSchema
	// prevResponse is a Responses request's previous_response_id: the
	// history it continues is that response's.
	prevResponse string
	// items is, for a Responses request with an input item list, its
	// history item by item (the instructions, then each input item: a
	// function call on its own rather than joined to the assistant
	// message before it), as sessions read it; nil for other requests.
	items []reqMsg
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

// nativeTools reports whether the request declares tools in its tools
// field (the client calls them natively), not only as an XML catalogue in
// its prompt as Obsidian Copilot's XML era does. A nil request has none.
func (ri *requestInfo) nativeTools() bool {
	if ri == nil {
		return false
	}
	for _, ts := range ri.tools {
		if ts.source == "tools" {
			return true
		}
	}
	return false
}

// parseRequest reads a Chat Completions, Responses or Anthropic request body.
// Unknown shapes give an empty requestInfo.
func parseRequest(body []byte) *requestInfo {
	ri := &requestInfo{tools: map[string]*toolSchema{}}
	if len(body) == 0 || !gjson.ValidBytes(body) {
		return ri
	}
	f := fields(gjson.ParseBytes(body), "model", "stream", "previous_response_id", "system", "instructions", "messages", "input", "tools")
	ri.model = f[0].String()
	ri.stream = f[1].Bool()
	ri.prevResponse = f[2].String()
	if s := f[3]; s.Exists() {
		ri.messages = append(ri.messages, reqMsg{role: "system", text: contentText(s)})
	}
	instructions := f[4].String()
	if instructions != "" {
		ri.messages = append(ri.messages, reqMsg{role: "system", text: instructions})
	}
	f[5].ForEach(func(_, m gjson.Result) bool {
		mf := fields(m, "role", "content", "tool_call_id", "tool_calls")
		msg := reqMsg{role: mf[0].String(), text: contentText(mf[1]), toolCallID: mf[2].String()}
		mf[3].ForEach(func(k, tc gjson.Result) bool {
			msg.toolCalls = append(msg.toolCalls, protocol.ToolCall{Index: int(k.Int()), ID: tc.Get("id").String(), Name: tc.Get("function.name").String(), Arguments: tc.Get("function.arguments").String()})
			return true
		})
		// Anthropic content blocks: tool_use in assistant turns, tool_result in user turns.
		var results []reqMsg
		mf[1].ForEach(func(k, b gjson.Result) bool {
			switch b.Get("type").String() {
			case "tool_use":
				msg.toolCalls = append(msg.toolCalls, protocol.ToolCall{Index: int(k.Int()), ID: b.Get("id").String(), Name: b.Get("name").String(), Arguments: b.Get("input").Raw})
			case "tool_result":
				results = append(results, reqMsg{role: "tool", toolCallID: b.Get("tool_use_id").String(), text: contentText(b.Get("content"))})
			}
			return true
		})
		if len(results) > 0 && strings.TrimSpace(msg.text) == "" {
			ri.messages = append(ri.messages, results...)
			return true
		}
		ri.messages = append(ri.messages, msg)
		ri.messages = append(ri.messages, results...)
		return true
	})
	in := f[6]
	if in.Type == gjson.String {
		ri.messages = append(ri.messages, reqMsg{role: "user", text: in.String()})
	}
	if in.IsArray() {
		ri.items = []reqMsg{}
		if instructions != "" {
			ri.items = append(ri.items, reqMsg{role: "system", text: instructions})
		}
		in.ForEach(func(_, it gjson.Result) bool {
			m, ok := inputItem(it)
			if !ok {
				return true
			}
			ri.items = append(ri.items, m)
			if n := len(ri.messages); len(m.toolCalls) > 0 && n > 0 && ri.messages[n-1].role == "assistant" {
				// A function call joins the assistant message before it,
				// as Chat Completions and Messages carry calls.
				last := &ri.messages[n-1]
				last.toolCalls = append(slices.Clip(last.toolCalls), m.toolCalls...)
			} else {
				ri.messages = append(ri.messages, m)
			}
			return true
		})
	}
	f[7].ForEach(func(_, t gjson.Result) bool {
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
			return true
		}
		ts := &toolSchema{name: name, params: map[string]bool{}, source: "tools", schema: params.Raw}
		params.Get("properties").ForEach(func(k, _ gjson.Result) bool {
			ts.params[k.String()] = false
			return true
		})
		params.Get("required").ForEach(func(_, k gjson.Result) bool {
			ts.params[k.String()] = true
			return true
		})
		ts.void = len(ts.params) == 0
		ts.strictKw = params.Get("additionalProperties").Type == gjson.False
		ri.tools[name] = ts
		return true
	})
	if len(ri.tools) == 0 {
		for _, m := range ri.messages {
			if m.role == "system" || m.role == "developer" {
				for _, ts := range xmlCatalogue(m.text) {
					ri.tools[ts.name] = ts
				}
			}
		}
		// Obsidian Copilot's XML era also sent the prompt as the first user turn.
		if len(ri.tools) == 0 {
			for _, m := range ri.messages {
				if strings.Contains(m.text, "<parameters>") {
					for _, ts := range xmlCatalogue(m.text) {
						ri.tools[ts.name] = ts
					}
				}
			}
		}
	}
	return ri
}

// inputItem reads one item of a Responses input list as a message: a
// function call (an assistant message calling it), a function call's
// output (a tool result), or a message with a role. Items without a role
// (reasoning, item_reference) carry no message of the conversation.
func inputItem(it gjson.Result) (reqMsg, bool) {
	f := fields(it, "type", "role", "content", "call_id", "name", "arguments", "output")
	switch f[0].String() {
	case "function_call":
		return reqMsg{role: "assistant", toolCalls: []protocol.ToolCall{{ID: f[3].String(), Name: f[4].String(), Arguments: f[5].String()}}}, true
	case "function_call_output":
		return reqMsg{role: "tool", toolCallID: f[3].String(), text: contentText(f[6])}, true
	}
	if role := f[1].String(); role != "" {
		return reqMsg{role: role, text: contentText(f[2])}, true
	}
	return reqMsg{}, false
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

// xmlCatalogue returns the tools of the catalogue Obsidian Copilot's XML
// era put in its system prompt (clients.XMLCatalogue): every parameter
// optional, no other parameter allowed.
func xmlCatalogue(s string) []*toolSchema {
	var out []*toolSchema
	for _, t := range clients.XMLCatalogue(s) {
		ts := &toolSchema{name: t.Name, params: map[string]bool{}, strictKw: true, source: "system-prompt", void: len(t.Params) == 0}
		for _, p := range t.Params {
			ts.params[p] = false
		}
		out = append(out, ts)
	}
	return out
}
