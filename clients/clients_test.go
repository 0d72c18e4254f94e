package clients

import (
	"strings"
	"testing"

	"github.com/seam-dev/seam/internal/streamtest"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
)

// Stream builders (package streamtest).
var (
	cc        = streamtest.Chunk
	ccf       = streamtest.ChunkFinish
	chatText  = streamtest.ChatText
	tool      = streamtest.Tool
	antStream = streamtest.Anthropic
)

const (
	chatRole = streamtest.ChatRole
	done     = streamtest.Done
)

// chunksOf is streamtest.Chunks.
var chunksOf = streamtest.Chunks

// emulate parses and assembles a streamed body of the endpoint at url as
// package protocol does and returns what each client reading its
// protocol ends up with, in report order.
func emulate(url, body string) []Result {
	se := protocol.ParseSide(chunksOf(tape.Client, []byte(body), 0), nil)
	a := protocol.Assemble(protocol.Detect(url, se.Events), se)
	return Emulate(se, &a.Message, true)
}

// clientResults emulates every client over a Chat Completions body and
// returns their results by client name.
func clientResults(t *testing.T, body string) map[string]Result {
	t.Helper()
	out := map[string]Result{}
	for _, c := range emulate("/v1/chat/completions", body) {
		out[c.Client] = c
	}
	if want := For(protocol.Chat); len(out) != len(want) {
		t.Fatalf("got clients %v, want %v", out, want)
	}
	return out
}

// TestToolIndexStartingAtOne follows the SDKs' rules
// (docs/PROTOCOLS.md#chat) on a stream whose only tool call has index 1 (the Anthropic-compat shape): openai-node
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

	if got := rs[Spec].ToolCalls; len(got) != 1 || withoutBorn(got[0]) != whole {
		t.Errorf("spec = %+v, want [%+v]", got, whole)
	}
	node := rs[OpenAINode]
	if !strings.Contains(node.Error, "reading 'id'") || !strings.Contains(node.Error, "holes: 1 of 2") {
		t.Errorf("openai-node error = %q, want normalizeToolCallIds failing on the hole at tool_calls[0]", node.Error)
	}
	if len(node.ToolCalls) != 1 || node.ToolCalls[0] != whole {
		t.Errorf("openai-node calls = %+v, want [%+v] beside the hole", node.ToolCalls, whole)
	}
	py := rs[OpenAIPython]
	wantPy := []protocol.ToolCall{
		{Index: 1, ID: "call_1", Name: "read", Arguments: ""},
		{Index: 1, Arguments: `{"path": "a.txt"}`},
	}
	if len(py.ToolCalls) != 2 || py.ToolCalls[0] != wantPy[0] || py.ToolCalls[1] != wantPy[1] || py.Error != "" {
		t.Errorf("openai-python calls = %+v (error %q), want %+v", py.ToolCalls, py.Error, wantPy)
	}
	vs := rs[VSCode]
	if len(vs.ToolCalls) != 1 || vs.ToolCalls[0].ID != "call_1" || vs.ToolCalls[0].Name != "read" || vs.ToolCalls[0].Arguments != whole.Arguments {
		t.Errorf("vscode calls = %+v", vs.ToolCalls)
	}

	// The same stream indexed from 0 gives every client the one call.
	rs = clientResults(t, strings.ReplaceAll(body, `"index":1`, `"index":0`))
	for _, name := range []string{OpenAINode, OpenAIPython} {
		r := rs[name]
		if len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != "read" || r.ToolCalls[0].Arguments != whole.Arguments || r.Error != "" {
			t.Errorf("%s with index 0 = %+v (error %q)", name, r.ToolCalls, r.Error)
		}
	}
}

// TestVSCodeChatRules checks the VS Code Copilot Chat emulator against each
// behaviour docs/PROTOCOLS.md#sse and #chat list, next to what the spec assembly
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
		check func(t *testing.T, vs, node Result)
	}{
		{
			name: "tool calls matched by id, index never read",
			body: twoCallsOneIndex,
			check: func(t *testing.T, vs, node Result) {
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
			name: "a delta with a known id returns to that call",
			body: cc(chatRole) + cc(tool(0, "call_a", "edit", `{"f":`)) + cc(tool(1, "call_b", "edit", `{"f":2}`)) +
				cc(tool(0, "call_a", "", `1}`)) + ccf(`{}`, "tool_calls") + done,
			check: func(t *testing.T, vs, _ Result) {
				if len(vs.ToolCalls) != 2 || vs.ToolCalls[0].Arguments != `{"f":1}` || vs.ToolCalls[1].Arguments != `{"f":2}` {
					t.Errorf("vscode calls = %+v", vs.ToolCalls)
				}
			},
		},
		{
			name: "content beside tool_calls is dropped",
			body: cc(chatRole) + cc(`{"content":"Let me look.","tool_calls":[{"index":0,"id":"call_a","function":{"name":"read","arguments":"{}"}}]}`) +
				ccf(`{}`, "tool_calls") + done,
			check: func(t *testing.T, vs, node Result) {
				if vs.Text != "" || len(vs.ToolCalls) != 1 {
					t.Errorf("vscode text %q calls %+v, want no text and the call", vs.Text, vs.ToolCalls)
				}
				if node.Text != "Let me look." {
					t.Errorf("openai-node text = %q, want it kept", node.Text)
				}
			},
		},
		{
			name: "content beside an empty tool_calls array is dropped too",
			body: cc(chatRole) + cc(`{"content":"Hello","tool_calls":[]}`) + ccf(`{}`, "stop") + done,
			check: func(t *testing.T, vs, node Result) {
				if vs.Text != "" || node.Text != "Hello" {
					t.Errorf("vscode text %q, openai-node text %q", vs.Text, node.Text)
				}
			},
		},
		{
			name: "a space is added before the first named tool call",
			body: cc(chatRole) + cc(`{"content":"Reading."}`) + cc(tool(0, "call_a", "read", `{}`)) + ccf(`{}`, "tool_calls") + done,
			check: func(t *testing.T, vs, node Result) {
				if vs.Text != "Reading. " || node.Text != "Reading." {
					t.Errorf("vscode text %q, openai-node text %q", vs.Text, node.Text)
				}
			},
		},
		{
			name: "one trailing \\r is removed from each content delta",
			body: chatText("foo\r", "\r", "bar\r\r"),
			check: func(t *testing.T, vs, node Result) {
				if vs.Text != "foobar\r" || node.Text != "foo\r\rbar\r\r" {
					t.Errorf("vscode text %q, openai-node text %q", vs.Text, node.Text)
				}
			},
		},
		{
			name: "an unterminated last line is never processed",
			body: cc(chatRole) + cc(tool(0, "call_a", "read", `{}`)) + strings.TrimSuffix(ccf(`{}`, "tool_calls"), "\n\n"),
			check: func(t *testing.T, vs, _ Result) {
				if vs.FinishReason != "Iteration Done" || len(vs.ToolCalls) != 0 || !strings.Contains(vs.Error, "tool calls dropped") {
					t.Errorf("vscode finish %q calls %+v error %q, want the finish line lost and the calls dropped", vs.FinishReason, vs.ToolCalls, vs.Error)
				}
			},
		},
		{
			name: "an unterminated [DONE] after a finish changes nothing",
			body: chatText("Hi") + "data: [DONE]",
			check: func(t *testing.T, vs, _ Result) {
				if vs.FinishReason != "stop" || vs.Text != "Hi" {
					t.Errorf("vscode finish %q text %q", vs.FinishReason, vs.Text)
				}
			},
		},
		{
			name: "lines split on \\n only, CRLF trimmed, comments skipped",
			body: strings.ReplaceAll(": keepalive\n\n"+chatText("Hi"), "\n", "\r\n"),
			check: func(t *testing.T, vs, _ Result) {
				if vs.Text != "Hi" || vs.FinishReason != "stop" {
					t.Errorf("vscode text %q finish %q", vs.Text, vs.FinishReason)
				}
			},
		},
		{
			name: "reading stops at [DONE]",
			body: chatText("Hi") + cc(`{"content":" late"}`),
			check: func(t *testing.T, vs, _ Result) {
				if vs.Text != "Hi" {
					t.Errorf("vscode text %q", vs.Text)
				}
			},
		},
		{
			name: "a finished choice ignores later chunks",
			body: cc(chatRole) + ccf(`{"content":"Hi"}`, "stop") + cc(`{"content":" again"}`) + done,
			check: func(t *testing.T, vs, node Result) {
				if vs.Text != "Hi" || node.Text != "Hi again" {
					t.Errorf("vscode text %q, openai-node text %q", vs.Text, node.Text)
				}
			},
		},
		{
			name: "finish_reason length drops the tool calls",
			body: cc(chatRole) + cc(tool(0, "call_a", "read", `{"path":"a"}`)) + ccf(`{}`, "length") + done,
			check: func(t *testing.T, vs, _ Result) {
				if vs.FinishReason != "length" || len(vs.ToolCalls) != 0 {
					t.Errorf("vscode finish %q calls %+v", vs.FinishReason, vs.ToolCalls)
				}
			},
		},
		{
			name: "[DONE] without finish_reason gives DONE",
			body: cc(chatRole) + cc(`{"content":"Hi"}`) + done,
			check: func(t *testing.T, vs, _ Result) {
				if vs.FinishReason != "DONE" || vs.Text != "Hi" {
					t.Errorf("vscode finish %q text %q", vs.FinishReason, vs.Text)
				}
			},
		},
		{
			name: "reasoning_content and reasoning are not read",
			body: cc(chatRole) + cc(`{"reasoning_content":"think"}`) + cc(`{"reasoning":"more"}`) + ccf(`{"content":"Hi"}`, "stop") + done,
			check: func(t *testing.T, vs, _ Result) {
				if vs.Reasoning != "" || vs.Text != "Hi" {
					t.Errorf("vscode reasoning %q text %q", vs.Reasoning, vs.Text)
				}
			},
		},
		{
			name: "an error payload without choices ends the reply",
			body: cc(chatRole) + cc(`{"content":"Hi"}`) + `data: {"error":{"message":"overloaded"}}` + "\n\n" + done,
			check: func(t *testing.T, vs, _ Result) {
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
			tc.check(t, rs[VSCode], rs[OpenAINode])
		})
	}
}

// TestVSCodeLinesAcrossChunks checks that the line-based VS Code emulator
// reads the same stream the same way however the body is cut into reads.
func TestVSCodeLinesAcrossChunks(t *testing.T) {
	t.Parallel()
	body := []byte(chatText("Hello", " wor\r", "ld") + cc(`{"content":" late"}`))
	var want Result
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

// TestClientsReadTheirProtocol checks that a stream is read only by the
// clients that speak its protocol: a complete Anthropic stream by the spec,
// VS Code's Messages processor, Obsidian and the two Anthropic SDKs, which
// all end with its text and no error, and never by openai-node or
// openai-python; a Chat stream by the OpenAI SDKs and not the Anthropic
// ones.
func TestClientsReadTheirProtocol(t *testing.T) {
	t.Parallel()
	names := func(rs []Result) []string {
		var out []string
		for _, c := range rs {
			out = append(out, c.Client)
		}
		return out
	}
	ant := emulate("/v1/messages", antStream(true, streamtest.AntStart, streamtest.AntTextStart, streamtest.AntTextDelta, streamtest.AntStop0, streamtest.AntMsgDelta, streamtest.AntMsgStop))
	want := []string{Spec, VSCode, Obsidian, AnthropicTS, AnthropicPython}
	if got := names(ant); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("anthropic stream read by %v, want %v", got, want)
	}
	for _, c := range ant {
		if c.Text != "Hi" || c.Error != "" || strings.Contains(c.Rule, ".md") {
			t.Errorf("%s: text %q error %q rule %q", c.Client, c.Text, c.Error, c.Rule)
		}
	}
	chat := emulate("/v1/chat/completions", chatText("Hi"))
	want = []string{Spec, VSCode, Obsidian, OpenAINode, OpenAIPython}
	if got := names(chat); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("chat stream read by %v, want %v", got, want)
	}
}

// withoutBorn returns tc without the events it was born at, for comparing
// with a literal.
func withoutBorn(tc protocol.ToolCall) protocol.ToolCall {
	tc.Born = protocol.Born{}
	return tc
}
