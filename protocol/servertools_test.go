package protocol

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/seam-dev/seam/tape"
)

// The recorded server-tool stream (Anthropic's web search) is in
// providers_test.go. No recording of the Responses API's hosted tools or of
// Bedrock's system tools was found to copy (fixtures/round3/MANIFEST.md), so
// these streams are built from the SDK types and the API reference, and
// say so.

// TestResponsesServerTools: a Responses stream whose web search OpenAI ran
// (the item and events as openai-node 7.57's types define them:
// ResponseFunctionWebSearch, type "web_search_call", action.query, and
// response.web_search_call.in_progress/searching/completed) before it
// answered with text. The search is a server tool, shown with its query
// and status; the answer has no tool call for the client, and the
// function call beside it still is one.
func TestResponsesServerTools(t *testing.T) {
	t.Parallel()
	ws := `{"id":"ws_1","type":"web_search_call","status":"completed","action":{"type":"search","query":"weather San Francisco"}}`
	fc := `{"id":"fc_1","type":"function_call","status":"completed","call_id":"call_1","name":"get_time","arguments":"{}"}`
	msg := `{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Sunny.","annotations":[]}]}`
	events := []string{
		`{"type":"response.created","response":{"id":"resp_1","status":"in_progress","output":[]}}`,
		`{"type":"response.output_item.added","output_index":0,"item":{"id":"ws_1","type":"web_search_call","status":"in_progress"}}`,
		`{"type":"response.web_search_call.in_progress","output_index":0,"item_id":"ws_1"}`,
		`{"type":"response.web_search_call.searching","output_index":0,"item_id":"ws_1"}`,
		`{"type":"response.web_search_call.completed","output_index":0,"item_id":"ws_1"}`,
		`{"type":"response.output_item.done","output_index":0,"item":` + ws + `}`,
		`{"type":"response.output_item.added","output_index":1,"item":{"id":"fc_1","type":"function_call","status":"in_progress","call_id":"call_1","name":"get_time","arguments":""}}`,
		`{"type":"response.function_call_arguments.delta","output_index":1,"item_id":"fc_1","delta":"{}"}`,
		`{"type":"response.output_item.done","output_index":1,"item":` + fc + `}`,
		`{"type":"response.output_item.added","output_index":2,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}}`,
		`{"type":"response.content_part.added","output_index":2,"item_id":"msg_1","content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}`,
		`{"type":"response.output_text.delta","output_index":2,"item_id":"msg_1","content_index":0,"delta":"Sunny."}`,
		`{"type":"response.output_item.done","output_index":2,"item":` + msg + `}`,
		`{"type":"response.completed","response":{"id":"resp_1","status":"completed","output":[` + ws + `,` + fc + `,` + msg + `]}}`,
	}
	var b strings.Builder
	for _, e := range events {
		typ := e[len(`{"type":"`) : strings.Index(e[len(`{"type":"`):], `"`)+len(`{"type":"`)]
		b.WriteString("event: " + typ + "\ndata: " + e + "\n\n")
	}
	se := ParseSide(chunksOf(tape.Upstream, []byte(b.String()), 0), nil)
	a := Assemble(Responses, se)
	if len(a.Anomalies) > 0 {
		t.Errorf("anomalies %+v", a.Anomalies)
	}
	want := ServerTool{Index: 0, ID: "ws_1", Name: "web_search", Input: "weather San Francisco", Result: "completed"}
	for what, m := range map[string]*Message{"stream": &a.Message, "response.completed": a.Message.Final} {
		ch := m.Choices[0]
		if len(ch.ServerTools) != 1 || withoutBornST(ch.ServerTools[0]) != want {
			t.Errorf("%s: server tools %+v, want [%+v]", what, ch.ServerTools, want)
		}
		if len(ch.ToolCalls) != 1 || ch.ToolCalls[0].Name != "get_time" {
			t.Errorf("%s: tool calls %+v, want get_time alone", what, ch.ToolCalls)
		}
		if ch.Text != "Sunny." {
			t.Errorf("%s: text %q", what, ch.Text)
		}
	}
	if b := a.Message.Choices[0].ServerTools[0].Born; b.First() != 1 || b.Last() != 5 {
		t.Errorf("the search was born at events %d..%d, want 1..5", b.First(), b.Last())
	}
}

// TestConverseServerTool: a ConverseStream in which Bedrock ran a system
// tool (Nova's web grounding): the API reference's ToolUseBlockStart has a
// type, server_tool_use for such a tool, and its result comes back as a
// toolResult block of the same message. It is a server tool, not a call
// the client must answer; a toolUse without that type still is one.
func TestConverseServerTool(t *testing.T) {
	t.Parallel()
	frames := []struct{ name, data string }{
		{"messageStart", `{"role":"assistant"}`},
		{"contentBlockStart", `{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"tooluse_g1","name":"nova_grounding","type":"server_tool_use"}}}`},
		{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"query\":\"weather\"}"}}}`},
		{"contentBlockStop", `{"contentBlockIndex":0}`},
		{"contentBlockStart", `{"contentBlockIndex":1,"start":{"toolResult":{"toolUseId":"tooluse_g1","status":"success"}}}`},
		{"contentBlockDelta", `{"contentBlockIndex":1,"delta":{"toolResult":[{"text":"…"}]}}`},
		{"contentBlockStop", `{"contentBlockIndex":1}`},
		{"contentBlockDelta", `{"contentBlockIndex":2,"delta":{"text":"Sunny."}}`},
		{"contentBlockStop", `{"contentBlockIndex":2}`},
		{"contentBlockStart", `{"contentBlockIndex":3,"start":{"toolUse":{"toolUseId":"tooluse_c1","name":"get_time"}}}`},
		{"contentBlockDelta", `{"contentBlockIndex":3,"delta":{"toolUse":{"input":"{}"}}}`},
		{"contentBlockStop", `{"contentBlockIndex":3}`},
		{"messageStop", `{"stopReason":"tool_use"}`},
		{"metadata", `{"usage":{"inputTokens":5,"outputTokens":7,"totalTokens":12}}`},
	}
	se := &Side{}
	for i, f := range frames {
		se.Events = append(se.Events, Event{Index: i, Name: f.name, Data: f.data, MessageType: "event", Terminated: true})
	}
	a := Assemble(BedrockConverse, se)
	if len(a.Anomalies) > 0 {
		t.Errorf("anomalies %+v", a.Anomalies)
	}
	ch := a.Message.Choices[0]
	want := ServerTool{Index: 0, ID: "tooluse_g1", Name: "nova_grounding", Input: `{"query":"weather"}`, Result: "toolResult success"}
	if len(ch.ServerTools) != 1 || withoutBornST(ch.ServerTools[0]) != want {
		t.Errorf("server tools %+v, want [%+v]", ch.ServerTools, want)
	}
	if len(ch.ToolCalls) != 1 || ch.ToolCalls[0].Name != "get_time" || ch.Text != "Sunny." {
		t.Errorf("tool calls %+v, text %q", ch.ToolCalls, ch.Text)
	}

	// The same events carried in Invoke chunks, as Nova sends them there.
	inv := &Side{}
	for i, f := range frames {
		payload := `{"` + f.name + `":` + f.data + `}`
		inv.Events = append(inv.Events, Event{Index: i, Name: "chunk", MessageType: "event", Terminated: true,
			Data: `{"bytes":"` + base64.StdEncoding.EncodeToString([]byte(payload)) + `"}`})
	}
	b := Assemble(BedrockInvoke, inv)
	if len(b.Anomalies) > 0 || len(b.Message.Choices[0].ServerTools) != 1 || len(b.Message.Choices[0].ToolCalls) != 1 {
		t.Errorf("through Invoke: anomalies %+v, choice %+v", b.Anomalies, b.Message.Choices[0])
	}
}

func withoutBornST(st ServerTool) ServerTool {
	st.Born = Born{}
	return st
}
