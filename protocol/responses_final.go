package protocol

import (
	"strings"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/internal/jsontext"
	"github.com/tidwall/gjson"
)

// ResponsesFinal builds a Message from a Responses response object.
func ResponsesFinal(r gjson.Result) *Message {
	var f [7]gjson.Result
	jsontext.GetFields(r, []string{"id", "model", "status", "error", "incomplete_details", "output", "usage"}, f[:])
	m := &Message{Protocol: Responses, ID: f[0].String(), Model: f[1].String(), Status: f[2].String()}
	if e := f[3]; e.IsObject() {
		m.Error = ErrorText(e)
	}
	if reason := f[4].Get("reason").String(); reason != "" {
		m.Error = "incomplete: " + reason
	}
	ch := m.choice(0)
	ch.Role = "assistant"
	var text, reasoning, refusal strings.Builder
	f[5].ForEach(func(k, o gjson.Result) bool {
		switch o.Get("type").String() {
		case "function_call":
			ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: int(k.Int()), ID: o.Get("call_id").String(), Name: o.Get("name").String(), Arguments: o.Get("arguments").String()})
		case "custom_tool_call":
			ch.ToolCalls = append(ch.ToolCalls, ToolCall{Index: int(k.Int()), ID: o.Get("call_id").String(), Name: o.Get("name").String(), Arguments: o.Get("input").String(), Custom: true})
		case "web_search_call", "file_search_call", "code_interpreter_call", "image_generation_call", "mcp_call", "mcp_list_tools":
			ch.ServerTools = append(ch.ServerTools, serverToolItem(int(k.Int()), o))
		case "reasoning":
			o.Get("summary").ForEach(func(_, s gjson.Result) bool {
				reasoning.WriteString(s.Get("text").String())
				return true
			})
		case "message":
			o.Get("content").ForEach(func(_, c gjson.Result) bool {
				switch c.Get("type").String() {
				case "output_text":
					text.WriteString(c.Get("text").String())
				case "refusal":
					refusal.WriteString(c.Get("refusal").String())
				}
				return true
			})
		}
		return true
	})
	ch.Text, ch.Reasoning, ch.Refusal = text.String(), reasoning.String(), refusal.String()
	ch.FinishReason = m.Status
	if u := f[6]; u.IsObject() {
		m.Usage = &Usage{Input: int(u.Get("input_tokens").Int()), Output: int(u.Get("output_tokens").Int()),
			Total: int(u.Get("total_tokens").Int()), Reasoning: int(u.Get("output_tokens_details.reasoning_tokens").Int()),
			CacheRead: int(u.Get("input_tokens_details.cached_tokens").Int())}
	}
	return m
}

// serverToolItems names the Responses output items of the tools OpenAI
// runs itself (the hosted tools of the Responses API: the SDK types
// ResponseFunctionWebSearch, ResponseFileSearchToolCall,
// ResponseCodeInterpreterToolCall, ImageGenerationCall, McpCall,
// McpListTools), with the tool's name. Their results come back within the
// same response: the client answers none of them. The calls the client
// runs (function_call, custom_tool_call, and the local shell, computer and
// apply_patch calls) are not here.
var serverToolItems = map[string]string{
	"web_search_call":       "web_search",
	"file_search_call":      "file_search",
	"code_interpreter_call": "code_interpreter",
	"image_generation_call": "image_generation",
	"mcp_call":              "mcp",
	"mcp_list_tools":        "mcp_list_tools",
}

// serverToolItem reads a hosted tool's output item (its
// output_item.done or response.completed copy): the tool's name, what it
// was given (the search query, the file search queries, the code, an MCP
// call's arguments) and its status.
func serverToolItem(index int, o gjson.Result) ServerTool {
	var f [10]gjson.Result
	jsontext.GetFields(o, []string{"type", "id", "status", "action", "queries", "code", "name", "arguments", "server_label", "error"}, f[:])
	st := ServerTool{Index: index, ID: f[1].String(), Name: serverToolItems[f[0].String()], Result: f[2].String()}
	switch f[0].String() {
	case "web_search_call":
		for _, k := range []string{"query", "url", "pattern"} {
			if v := f[3].Get(k); v.Type == gjson.String {
				st.Input = v.String()
				break
			}
		}
	case "file_search_call":
		if f[4].IsArray() {
			st.Input = f[4].Raw
		}
	case "code_interpreter_call":
		st.Input = f[5].String()
	case "mcp_call":
		if n := f[6].String(); n != "" {
			st.Name = n
		}
		st.Input = f[7].String()
		if e := f[9]; e.Exists() && e.Type != gjson.Null {
			st.Result = "error: " + excerpt.Clip(ErrorText(e), 80)
		}
	case "mcp_list_tools":
		st.Input = f[8].String()
	}
	return st
}
