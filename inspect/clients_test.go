package inspect

import (
	"strings"
	"testing"

	"github.com/seam-dev/seam/protocol"
)

// clientResults inspects a client-side Chat Completions body and returns
// what each emulated client ends up with, by client name.
func clientResults(t *testing.T, body string) map[string]ClientResult {
	t.Helper()
	r := Inspect(exInput{client: body}.capture(), Options{})
	out := map[string]ClientResult{}
	for _, c := range r.Exchanges[0].Clients {
		out[c.Client] = c
	}
	if want := ClientsFor(protocol.Chat); len(out) != len(want) {
		t.Fatalf("got clients %v, want %v", out, want)
	}
	return out
}

// TestToolIndexStartingAtOne follows protocols.md §3.2 and §3.5 on a stream
// whose only tool call has index 1 (the Anthropic-compat shape): openai-node
// keys a sparse array by index, so tool_calls[0] is a hole its finalisation
// rejects; openai-python inserts the second delta at list position 1, so
// the call splits into a named entry without arguments and a nameless
// entry holding them; VS Code never reads index and gets the call whole.
func TestToolIndexStartingAtOne(t *testing.T) {
	t.Parallel()
	body := cc(chatRole) +
		cc(tool(1, "call_1", "read", "")) +
		cc(tool(1, "", "", `{"path": `)) +
		cc(tool(1, "", "", `"a.txt"}`)) +
		ccf(`{}`, "tool_calls") + done
	rs := clientResults(t, body)
	whole := protocol.ToolCall{Index: 1, ID: "call_1", Name: "read", Arguments: `{"path": "a.txt"}`}

	if got := rs[ClientSpec].ToolCalls; len(got) != 1 || withoutBorn(got[0]) != whole {
		t.Errorf("spec = %+v, want [%+v]", got, whole)
	}
	node := rs[ClientOpenAINode]
	if !strings.Contains(node.Error, "reading 'id'") || !strings.Contains(node.Error, "holes: 1 of 2") {
		t.Errorf("openai-node error = %q, want normalizeToolCallIds failing on the hole at tool_calls[0]", node.Error)
	}
	if len(node.ToolCalls) != 1 || node.ToolCalls[0] != whole {
		t.Errorf("openai-node calls = %+v, want [%+v] beside the hole", node.ToolCalls, whole)
	}
	py := rs[ClientOpenAIPython]
	wantPy := []protocol.ToolCall{
		{Index: 1, ID: "call_1", Name: "read", Arguments: ""},
		{Index: 1, Arguments: `{"path": "a.txt"}`},
	}
	if len(py.ToolCalls) != 2 || py.ToolCalls[0] != wantPy[0] || py.ToolCalls[1] != wantPy[1] || py.Error != "" {
		t.Errorf("openai-python calls = %+v (error %q), want %+v", py.ToolCalls, py.Error, wantPy)
	}
	vs := rs[ClientVSCode]
	if len(vs.ToolCalls) != 1 || vs.ToolCalls[0].ID != "call_1" || vs.ToolCalls[0].Name != "read" || vs.ToolCalls[0].Arguments != whole.Arguments {
		t.Errorf("vscode calls = %+v", vs.ToolCalls)
	}

	// The same stream indexed from 0 gives every client the one call.
	rs = clientResults(t, strings.ReplaceAll(body, `"index":1`, `"index":0`))
	for _, name := range []string{ClientOpenAINode, ClientOpenAIPython} {
		r := rs[name]
		if len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != "read" || r.ToolCalls[0].Arguments != whole.Arguments || r.Error != "" {
			t.Errorf("%s with index 0 = %+v (error %q)", name, r.ToolCalls, r.Error)
		}
	}
}

// TestVSCodeChatRules checks the VS Code Copilot Chat emulator against each
// behaviour protocols.md §2.1–§2.5 lists, next to what the spec assembly
// (or openai-node) gives for the same stream.
func TestVSCodeChatRules(t *testing.T) {
	t.Parallel()
	twoCallsOneIndex := cc(chatRole) +
		cc(tool(0, "call_a", "edit", `{"f":`)) +
		cc(tool(0, "", "", `1}`)) +
		cc(tool(0, "call_b", "edit", `{"f":`)) +
		cc(tool(0, "", "", `2}`)) +
		ccf(`{}`, "tool_calls") + done
	tests := []struct {
		name string
		body string
		// check inspects the VS Code result and the openai-node result.
		check func(t *testing.T, vs, node ClientResult)
	}{
		{
			name: "§2.4 tool calls matched by id, index never read",
			body: twoCallsOneIndex,
			check: func(t *testing.T, vs, node ClientResult) {
				if len(vs.ToolCalls) != 2 || vs.ToolCalls[0].ID != "call_a" || vs.ToolCalls[0].Arguments != `{"f":1}` ||
					vs.ToolCalls[1].ID != "call_b" || vs.ToolCalls[1].Arguments != `{"f":2}` {
					t.Errorf("vscode calls = %+v, want call_a {\"f\":1} and call_b {\"f\":2}", vs.ToolCalls)
				}
				if len(node.ToolCalls) != 1 || node.ToolCalls[0].Arguments != `{"f":1}{"f":2}` {
					t.Errorf("openai-node calls = %+v, want one merged call", node.ToolCalls)
				}
			},
		},
		{
			name: "§2.4 a delta with a known id returns to that call",
			body: cc(chatRole) + cc(tool(0, "call_a", "edit", `{"f":`)) + cc(tool(1, "call_b", "edit", `{"f":2}`)) +
				cc(tool(0, "call_a", "", `1}`)) + ccf(`{}`, "tool_calls") + done,
			check: func(t *testing.T, vs, _ ClientResult) {
				if len(vs.ToolCalls) != 2 || vs.ToolCalls[0].Arguments != `{"f":1}` || vs.ToolCalls[1].Arguments != `{"f":2}` {
					t.Errorf("vscode calls = %+v", vs.ToolCalls)
				}
			},
		},
		{
			name: "§2.3 content beside tool_calls is dropped",
			body: cc(chatRole) + cc(`{"content":"Let me look.","tool_calls":[{"index":0,"id":"call_a","function":{"name":"read","arguments":"{}"}}]}`) +
				ccf(`{}`, "tool_calls") + done,
			check: func(t *testing.T, vs, node ClientResult) {
				if vs.Text != "" || len(vs.ToolCalls) != 1 {
					t.Errorf("vscode text %q calls %+v, want no text and the call", vs.Text, vs.ToolCalls)
				}
				if node.Text != "Let me look." {
					t.Errorf("openai-node text = %q, want it kept", node.Text)
				}
			},
		},
		{
			name: "§2.3 content beside an empty tool_calls array is dropped too",
			body: cc(chatRole) + cc(`{"content":"Hello","tool_calls":[]}`) + ccf(`{}`, "stop") + done,
			check: func(t *testing.T, vs, node ClientResult) {
				if vs.Text != "" || node.Text != "Hello" {
					t.Errorf("vscode text %q, openai-node text %q", vs.Text, node.Text)
				}
			},
		},
		{
			name: "§2.3 a space is added before the first named tool call",
			body: cc(chatRole) + cc(`{"content":"Reading."}`) + cc(tool(0, "call_a", "read", `{}`)) + ccf(`{}`, "tool_calls") + done,
			check: func(t *testing.T, vs, node ClientResult) {
				if vs.Text != "Reading. " || node.Text != "Reading." {
					t.Errorf("vscode text %q, openai-node text %q", vs.Text, node.Text)
				}
			},
		},
		{
			name: "§2.3 one trailing \\r is removed from each content delta",
			body: chatText("foo\r", "\r", "bar\r\r"),
			check: func(t *testing.T, vs, node ClientResult) {
				if vs.Text != "foobar\r" || node.Text != "foo\r\rbar\r\r" {
					t.Errorf("vscode text %q, openai-node text %q", vs.Text, node.Text)
				}
			},
		},
		{
			name: "§2.1 an unterminated last line is never processed",
			body: cc(chatRole) + cc(tool(0, "call_a", "read", `{}`)) + strings.TrimSuffix(ccf(`{}`, "tool_calls"), "\n\n"),
			check: func(t *testing.T, vs, _ ClientResult) {
				if vs.FinishReason != "Iteration Done" || len(vs.ToolCalls) != 0 || !strings.Contains(vs.Error, "tool calls dropped") {
					t.Errorf("vscode finish %q calls %+v error %q, want the finish line lost and the calls dropped", vs.FinishReason, vs.ToolCalls, vs.Error)
				}
			},
		},
		{
			name: "§2.1 an unterminated [DONE] after a finish changes nothing",
			body: chatText("Hi") + "data: [DONE]",
			check: func(t *testing.T, vs, _ ClientResult) {
				if vs.FinishReason != "stop" || vs.Text != "Hi" {
					t.Errorf("vscode finish %q text %q", vs.FinishReason, vs.Text)
				}
			},
		},
		{
			name: "§2.1 lines split on \\n only, CRLF trimmed, comments skipped",
			body: strings.ReplaceAll(": keepalive\n\n"+chatText("Hi"), "\n", "\r\n"),
			check: func(t *testing.T, vs, _ ClientResult) {
				if vs.Text != "Hi" || vs.FinishReason != "stop" {
					t.Errorf("vscode text %q finish %q", vs.Text, vs.FinishReason)
				}
			},
		},
		{
			name: "§2.1 reading stops at [DONE]",
			body: chatText("Hi") + cc(`{"content":" late"}`),
			check: func(t *testing.T, vs, _ ClientResult) {
				if vs.Text != "Hi" {
					t.Errorf("vscode text %q", vs.Text)
				}
			},
		},
		{
			name: "§2.5 a finished choice ignores later chunks",
			body: cc(chatRole) + ccf(`{"content":"Hi"}`, "stop") + cc(`{"content":" again"}`) + done,
			check: func(t *testing.T, vs, node ClientResult) {
				if vs.Text != "Hi" || node.Text != "Hi again" {
					t.Errorf("vscode text %q, openai-node text %q", vs.Text, node.Text)
				}
			},
		},
		{
			name: "§2.5 finish_reason length drops the tool calls",
			body: cc(chatRole) + cc(tool(0, "call_a", "read", `{"path":"a"}`)) + ccf(`{}`, "length") + done,
			check: func(t *testing.T, vs, _ ClientResult) {
				if vs.FinishReason != "length" || len(vs.ToolCalls) != 0 {
					t.Errorf("vscode finish %q calls %+v", vs.FinishReason, vs.ToolCalls)
				}
			},
		},
		{
			name: "§2.5 [DONE] without finish_reason gives DONE",
			body: cc(chatRole) + cc(`{"content":"Hi"}`) + done,
			check: func(t *testing.T, vs, _ ClientResult) {
				if vs.FinishReason != "DONE" || vs.Text != "Hi" {
					t.Errorf("vscode finish %q text %q", vs.FinishReason, vs.Text)
				}
			},
		},
		{
			name: "§2.2 reasoning_content and reasoning are not read",
			body: cc(chatRole) + cc(`{"reasoning_content":"think"}`) + cc(`{"reasoning":"more"}`) + ccf(`{"content":"Hi"}`, "stop") + done,
			check: func(t *testing.T, vs, _ ClientResult) {
				if vs.Reasoning != "" || vs.Text != "Hi" {
					t.Errorf("vscode reasoning %q text %q", vs.Reasoning, vs.Text)
				}
			},
		},
		{
			name: "§2.2 an error payload without choices ends the reply",
			body: cc(chatRole) + cc(`{"content":"Hi"}`) + `data: {"error":{"message":"overloaded"}}` + "\n\n" + done,
			check: func(t *testing.T, vs, _ ClientResult) {
				if vs.FinishReason != "error" || !strings.Contains(vs.Error, "overloaded") {
					t.Errorf("vscode finish %q error %q", vs.FinishReason, vs.Error)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rs := clientResults(t, tc.body)
			tc.check(t, rs[ClientVSCode], rs[ClientOpenAINode])
		})
	}
}

// TestVSCodeLinesAcrossChunks checks that the line-based VS Code emulator
// reads the same stream the same way however the body is cut into reads.
func TestVSCodeLinesAcrossChunks(t *testing.T) {
	t.Parallel()
	body := []byte(chatText("Hello", " wor\r", "ld") + cc(`{"content":" late"}`))
	var want ClientResult
	for i, n := range []int{0, 1, 3, 7, 64} {
		se := protocol.ParseSide(chunksOf("client", body, n), nil)
		got := vscodeChat(se)
		if i == 0 {
			want = got
			if got.Text != "Hello world" || got.FinishReason != "stop" {
				t.Fatalf("one chunk: text %q finish %q", got.Text, got.FinishReason)
			}
			continue
		}
		if got.Text != want.Text || got.FinishReason != want.FinishReason || got.Error != want.Error {
			t.Errorf("chunks of %d: %+v, want %+v", n, got, want)
		}
	}
}

// TestClientsReadTheirProtocol checks that an exchange is read only by the
// clients that speak its protocol: a complete Anthropic stream by the spec,
// VS Code's Messages processor, Obsidian and the two Anthropic SDKs, which
// all agree on it, and never by openai-node or openai-python; a Chat
// stream by the OpenAI SDKs and not the Anthropic ones.
func TestClientsReadTheirProtocol(t *testing.T) {
	t.Parallel()
	names := func(x *ExchangeReport) []string {
		var out []string
		for _, c := range x.Clients {
			out = append(out, c.Client)
		}
		return out
	}
	ant := Inspect(exInput{url: "/v1/messages", client: antStream(true, antStart, antTextStart, antTextDelta, antStop0, antMsgDelta, antMsgStop)}.capture(), Options{}).Exchanges[0]
	want := []string{ClientSpec, ClientVSCode, ClientObsidian, ClientAnthropicTS, ClientAnthropicPython}
	if got := names(ant); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("anthropic stream read by %v, want %v", got, want)
	}
	if len(ant.Disagreements) != 0 {
		t.Errorf("a complete anthropic stream: clients disagree on %+v", ant.Disagreements)
	}
	for _, c := range ant.Clients {
		if c.Text == "" || c.Error != "" || strings.Contains(c.Rule, ".md") {
			t.Errorf("%s: text %q error %q rule %q", c.Client, c.Text, c.Error, c.Rule)
		}
	}
	chat := Inspect(exInput{client: chatText("Hi")}.capture(), Options{}).Exchanges[0]
	want = []string{ClientSpec, ClientVSCode, ClientObsidian, ClientOpenAINode, ClientOpenAIPython}
	if got := names(chat); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("chat stream read by %v, want %v", got, want)
	}
}

// TestFinishReasonsComparedByMeaning checks that clients naming the same end
// differently do not disagree (VS Code's "stop" for Anthropic's end_turn,
// Responses' completed), while a different end still does.
func TestFinishReasonsComparedByMeaning(t *testing.T) {
	t.Parallel()
	rs := []ClientResult{{Client: ClientSpec, FinishReason: "end_turn"}, {Client: ClientVSCode, FinishReason: "stop"}}
	if d := disagreements(rs, protocol.Anthropic, false); len(d) != 0 {
		t.Errorf("end_turn and VS Code's stop: %+v", d)
	}
	rs[0].FinishReason = "max_tokens"
	if d := disagreements(rs, protocol.Anthropic, false); len(d) != 1 || d[0].Field != "finish_reason" {
		t.Errorf("max_tokens and VS Code's stop: %+v, want a finish_reason disagreement", d)
	}
	rs = []ClientResult{{Client: ClientSpec, FinishReason: "refusal"}, {Client: ClientVSCode, FinishReason: "DONE"}}
	if d := disagreements(rs, protocol.Anthropic, false); len(d) != 0 {
		t.Errorf("refusal and VS Code's DONE: %+v", d)
	}
	rs = []ClientResult{{Client: ClientSpec, FinishReason: ""}, {Client: ClientVSCode, FinishReason: "DONE"}, {Client: ClientOpenAINode, FinishReason: "stop"}}
	if d := disagreements(rs, protocol.Chat, false); len(d) != 1 {
		t.Errorf("no reason, VS Code's DONE and stop: %+v, want one disagreement", d)
	}
	// Obsidian's XML era ignores structured tool calls: not a disagreement
	// when the request declares native tools, one when it found XML calls.
	calls := []protocol.ToolCall{{Name: "read", Arguments: "{}"}}
	rs = []ClientResult{{Client: ClientSpec, ToolCalls: calls}, {Client: ClientObsidian}}
	if d := disagreements(rs, protocol.Chat, true); len(d) != 0 {
		t.Errorf("native tools, Obsidian without XML calls: %+v", d)
	}
	if d := disagreements(rs, protocol.Chat, false); len(d) != 1 {
		t.Errorf("no native tools, Obsidian without the calls: %+v, want a tool_calls disagreement", d)
	}
	rs = []ClientResult{{Client: ClientSpec}, {Client: ClientObsidian, ToolCalls: calls, XMLCalls: []XMLToolCall{{Name: "read"}}}}
	if d := disagreements(rs, protocol.Chat, true); len(d) != 1 {
		t.Errorf("Obsidian's XML calls the others do not see: %+v, want a tool_calls disagreement", d)
	}
}
