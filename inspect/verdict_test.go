package inspect

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dev/seam/clients"
	"github.com/seam-dev/seam/convert"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
)

// These tests check seam's verdict on real provider streams (fixtures/round3/,
// see its MANIFEST.md) against what the official SDKs do with them: a
// healthy stream gets no error or warning, a broken one fails where the SDK
// fails, with the SDK's error.

// round3 reads a stream of fixtures/round3/.
func round3(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "fixtures", "round3", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// inspectOne inspects in and returns its last exchange's report.
func inspectOne(t *testing.T, in exInput) *ExchangeReport {
	t.Helper()
	r := Inspect(in.capture(), Options{})
	return r.Exchanges[len(r.Exchanges)-1]
}

// clientOf returns client name's result in x.
func clientOf(t *testing.T, x *ExchangeReport, name string) clients.Result {
	t.Helper()
	for _, c := range x.Clients {
		if c.Client == name {
			return c
		}
	}
	t.Fatalf("no %s result among %+v", name, x.Clients)
	return clients.Result{}
}

// worstFindings lists the findings of at least severity min, as "id".
func worstFindings(x *ExchangeReport, min Severity) []string {
	var out []string
	for _, f := range x.Findings {
		if f.Severity >= min {
			out = append(out, f.Severity.String()+" "+f.ID+": "+f.Message)
		}
	}
	return out
}

func hasFinding(x *ExchangeReport, id string) bool {
	for _, f := range x.Findings {
		if f.ID == id {
			return true
		}
	}
	return false
}

// TestHostileToolIndex (issue 20 item 4): the real parallel-tool-call
// stream with its second call's index rewritten to 2,000,000 and to
// 4,000,000,000 (the 1 KB captures that ran for hours or exhausted memory
// in inspect). openai-node 7.57 throws "Chat completion stream contains an
// invalid tool call index: 2000000" (run); seam says so, reports the index
// as a finding, keeps the call under its index, and renders the report.
// Without the fix this test does not end: the emulation grew a slice to
// the index and joined one error per hole.
func TestHostileToolIndex(t *testing.T) {
	t.Parallel()
	real, err := os.ReadFile("../fixtures/realworld/openai-chat-parallel-tool-calls.sse")
	if err != nil {
		t.Fatal(err)
	}
	for _, index := range []string{"2000000", "4000000000"} {
		// The choice index is 0 throughout: "index":1 is the second call's.
		body := strings.ReplaceAll(string(real), `"index":1,`, `"index":`+index+`,`)
		x := inspectOne(t, exInput{up: body, client: body})
		node := clientOf(t, x, clients.OpenAINode)
		if want := "OpenAIError: Chat completion stream contains an invalid tool call index: " + index; node.Error != want {
			t.Errorf("index %s: openai-node error %q, want %q", index, node.Error, want)
		}
		if !hasFinding(x, "chat.index-out-of-range") {
			t.Errorf("index %s: no chat.index-out-of-range among %v", index, worstFindings(x, Info))
		}
		calls := x.Sides[0].Message.Choices[0].ToolCalls
		if len(calls) != 2 || calls[1].Index != atoi(t, index) || calls[1].Name != "get_stock_price" {
			t.Errorf("index %s: spec calls %+v", index, calls)
		}
		// The structural diff, the text and JSON reports walk the
		// assembly: none may grow anything to the index either.
		var b bytes.Buffer
		if err := WriteText(&b, &Report{Exchanges: []*ExchangeReport{x}}, false); err != nil {
			t.Fatal(err)
		}
		if err := WriteJSON(&b, &Report{Exchanges: []*ExchangeReport{x}}); err != nil {
			t.Fatal(err)
		}
		if b.Len() > 1<<20 {
			t.Errorf("index %s: reports of %d bytes for a 3 KB stream", index, b.Len())
		}
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// TestHostileChoiceIndexes: a stream naming a new choice index in every
// chunk (here 3,000 of them, up to 4,000,000,000) assembles each once;
// openai-node refuses the first index past 127.
func TestHostileChoiceIndexes(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 3000 {
		idx := itoa(i * 1333333)
		b.WriteString(`data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":` + idx + `,"delta":{"role":"assistant","content":"x"},"finish_reason":"stop"}]}` + "\n\n")
	}
	b.WriteString(done)
	x := inspectOne(t, exInput{up: b.String(), client: b.String()})
	if n := len(x.Sides[0].Message.Choices); n != 3000 {
		t.Errorf("%d choices, want 3000", n)
	}
	if node := clientOf(t, x, clients.OpenAINode); node.Error != "OpenAIError: Chat completion stream contains an invalid choice index: 1333333" {
		t.Errorf("openai-node error %q", node.Error)
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

// openRouterError is the chunk an OpenAI-compatible gateway sent mid-stream
// on HTTP 200 in issue 21 (a top-level "error" beside a choice that
// finishes "length"), in the shape OpenRouter documents for errors during
// generation.
const openRouterError = `data: {"id":"gen-1761505596-N2bl6I6Yd0QMFYpOnqPz","provider":"Google AI Studio","model":"google/gemini-2.0-flash-001","object":"chat.completion.chunk","created":1761505596,"error":{"message":"Token limit reached","code":"token_limit"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"length"}]}` + "\n\n"

// withEvent returns the SSE body with ev inserted before its event n (0 =
// the first; comments count as events here, as they are blocks).
func withEvent(body string, n int, ev string) string {
	blocks := strings.SplitAfter(body, "\n\n")
	return strings.Join(blocks[:n], "") + ev + strings.Join(blocks[n:], "")
}

// TestInBandErrorChunk (issue 21 item 1): the real OpenRouter stream with
// the gateway's error chunk after its first content chunk. openai-node
// throws APIError "Token limit reached" there (Stream.fromSSEResponse:
// `if (data && data.error) throw new APIError(…)`; run at 7.57.0),
// openai-python raises APIError with the error's message (Stream.__stream__:
// `if is_mapping(data) and data.get("error")`): neither gets a finish
// reason, where seam used to end both with "length" and no error.
func TestInBandErrorChunk(t *testing.T) {
	t.Parallel()
	body := withEvent(round3(t, "activeagent-openrouter-gemini-tools-stream.2.sse"), 2, openRouterError)
	x := inspectOne(t, exInput{up: body, client: body})
	for _, name := range []string{clients.OpenAINode, clients.OpenAIPython} {
		c := clientOf(t, x, name)
		if c.Error != "APIError: Token limit reached" || c.FinishReason != "" || c.Text != "It" {
			t.Errorf("%s: error %q, finish %q, text %q; want the APIError after \"It\" and no finish", name, c.Error, c.FinishReason, c.Text)
		}
	}
	if m := x.Sides[0].Message; !strings.Contains(m.Error, "Token limit reached") {
		t.Errorf("the assembled message's error is %q", m.Error)
	}
	if !hasFinding(x, "stream.error-event") {
		t.Errorf("no stream.error-event among %v", worstFindings(x, Info))
	}
	// The same payload under "event: error" (Groq's way) throws too; an
	// "error": null does not.
	named := withEvent(round3(t, "activeagent-openrouter-gemini-tools-stream.2.sse"), 2, "event: error\n"+openRouterError)
	if c := clientOf(t, inspectOne(t, exInput{client: named}), clients.OpenAINode); c.Error != "APIError: Token limit reached" {
		t.Errorf("event: error: openai-node error %q", c.Error)
	}
	null := strings.Replace(openRouterError, `{"message":"Token limit reached","code":"token_limit"}`, "null", 1)
	null = strings.Replace(null, `"length"`, `null`, 1)
	calm := inspectOne(t, exInput{client: withEvent(round3(t, "activeagent-openrouter-gemini-tools-stream.2.sse"), 2, null)})
	if c := clientOf(t, calm, clients.OpenAINode); c.Error != "" {
		t.Errorf(`"error": null: openai-node error %q`, c.Error)
	}
}

// TestTrailingDoneAfterTerminal (issue 21 item 2): OpenRouter ends its
// Responses streams with data: [DONE] after response.completed. On the
// real Ruby-openai Responses stream with that [DONE] appended, openai-node
// reads the response cleanly (run at 7.57.0: finalResponse is the
// completed one), so seam raises no error or warning, only the info quirk;
// so too after an Anthropic message_stop. An event other than [DONE] after
// the terminal stays an error.
func TestTrailingDoneAfterTerminal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ url, body string }{
		{"/v1/responses", round3(t, "rubyopenai-responses-stream.1.sse")},
		{"/v1/responses", round3(t, "activeagent-openai-responses-tools-stream.1.sse")},
		{"/v1/messages", round3(t, "llmanthropic-web-search-stream.1.sse")},
	} {
		body := tc.body + done
		x := inspectOne(t, exInput{url: tc.url, up: body, client: body})
		if bad := worstFindings(x, Warn); len(bad) > 0 {
			t.Errorf("%s: %v", tc.url, bad)
		}
		if !hasFinding(x, "stream.trailing-done") {
			t.Errorf("%s: no stream.trailing-done", tc.url)
		}
		if tc.url == "/v1/responses" {
			for _, name := range []string{clients.OpenAINode, clients.OpenAIPython} {
				if c := clientOf(t, x, name); c.Error != "" || c.FinishReason != "completed" {
					t.Errorf("%s: %s error %q finish %q", tc.url, name, c.Error, c.FinishReason)
				}
			}
		}
		late := inspectOne(t, exInput{url: tc.url, client: tc.body + "data: {\"type\":\"late\"}\n\n"})
		if !hasFinding(late, "stream.after-terminal") {
			t.Errorf("%s: an event after the terminal is not stream.after-terminal", tc.url)
		}
	}
}

// TestChatWithoutDone (issue 21 item 6): the real OpenRouter chat stream
// without its data: [DONE] (as Perplexity and some OpenAI-compatible
// servers end): every choice finished, so the SDKs end normally at EOF
// (openai-node leaves its loop and finds a finish_reason; run at 7.57.0)
// and seam says only chat.no-done (info). Cut before the finish_reason
// too, it is stream.no-terminal (warning).
func TestChatWithoutDone(t *testing.T) {
	t.Parallel()
	real := round3(t, "activeagent-openrouter-gemini-tools-stream.2.sse")
	noDone := strings.TrimSuffix(real, done)
	if noDone == real {
		t.Fatal("the stream does not end in data: [DONE]")
	}
	x := inspectOne(t, exInput{up: noDone, client: noDone})
	if bad := worstFindings(x, Warn); len(bad) > 0 {
		t.Errorf("no [DONE]: %v", bad)
	}
	if !hasFinding(x, "chat.no-done") {
		t.Errorf("no chat.no-done among %v", worstFindings(x, Info))
	}
	for _, name := range []string{clients.OpenAINode, clients.OpenAIPython} {
		if c := clientOf(t, x, name); c.Error != "" || c.FinishReason != "stop" {
			t.Errorf("%s: error %q finish %q", name, c.Error, c.FinishReason)
		}
	}
	blocks := strings.SplitAfter(real, "\n\n")
	cut := strings.Join(blocks[:2], "") // the comment and the first chunk
	x = inspectOne(t, exInput{client: cut})
	if !hasFinding(x, "stream.no-terminal") || hasFinding(x, "chat.no-done") {
		t.Errorf("cut before the finish: %v", worstFindings(x, Info))
	}
}

// TestServerToolsAreNotClientCalls (issue 21 item 7): the real Anthropic
// web-search stream, imported from its VCR.py cassette with the request
// that declared the server tool ({"type":"web_search_20250305","name":
// "web_search"}). Anthropic ran the search and answered from it in the
// same message (stop_reason end_turn), so there is no call for the client
// to answer: no tool call is counted or compared (the tool's empty schema
// made it schema.void-args, and VS Code's emulation, which rightly ignores
// server_tool_use, a client.disagree), and the report shows what it was.
func TestServerToolsAreNotClientCalls(t *testing.T) {
	t.Parallel()
	c, err := convert.ImportBytes([]byte(round3(t, "llmanthropic-web-search-stream.yaml")), "llmanthropic-web-search-stream.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := Inspect(c, Options{})
	x := r.Exchanges[0]
	if len(x.Findings) > 0 {
		t.Errorf("findings on a healthy stream: %v", worstFindings(x, Info))
	}
	ch := x.Sides[0].Message.Choices[0]
	if len(ch.ToolCalls) != 0 || len(ch.ServerTools) != 1 || ch.ServerTools[0].Name != "web_search" {
		t.Errorf("tool calls %+v, server tools %+v", ch.ToolCalls, ch.ServerTools)
	}
	for _, cl := range x.Clients {
		if len(cl.ToolCalls) != 0 {
			t.Errorf("%s counts %d tool calls", cl.Client, len(cl.ToolCalls))
		}
	}
	for _, s := range r.Sessions {
		if s.ToolCalls != 0 {
			t.Errorf("session %s counts %d tool calls", s.ID, s.ToolCalls)
		}
	}
	var b bytes.Buffer
	if err := WriteText(&b, r, false); err != nil {
		t.Fatal(err)
	}
	want := `server tool web_search {"query": "San Francisco weather today"} #srvtoolu_01SPfvT38PDPAFnkcrMNGUrM (run by the provider: web_search_tool_result (10 results))`
	if !strings.Contains(b.String(), want) {
		t.Errorf("the text report lacks %q:\n%s", want, b.String())
	}
	if strings.Contains(b.String(), "tool 0 web_search") {
		t.Errorf("the text report shows the server tool as a tool call:\n%s", b.String())
	}
}

// TestBedrockInvokeFamilies (issue 21 item 5): every InvokeModelWithResponseStream
// family Bedrock documents, on its recorded stream (Nova's constructed from
// the documented shape), is a complete answer with no warning: seam read
// no text from Cohere Command or Nova and warned stream.no-terminal.
func TestBedrockInvokeFamilies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ file, text, finish string }{
		{"bedrock-invoke-stream-titan-text-express.eventstream", "\n1 degree Fahrenheit is 0.56", "FINISH"},
		{"bedrock-invoke-stream-cohere-command-text.eventstream", " To convert Fahrenheit to Celsius", "COMPLETE"},
		{"bedrock-invoke-stream-llama2-13b.eventstream", "  What is the conversion formula?", "length"},
		{"bedrock-invoke-stream-mistral-7b.eventstream", " To convert a temperature", "length"},
		{"bedrock-invoke-stream-nova-constructed.eventstream", "212 degrees Fahrenheit is 100 degrees Celsius", "end_turn"},
	} {
		x := inspectOne(t, exInput{url: "/model/m/invoke-with-response-stream", ct: "application/vnd.amazon.eventstream", up: round3(t, tc.file)})
		if bad := worstFindings(x, Warn); len(bad) > 0 {
			t.Errorf("%s: %v", tc.file, bad)
		}
		m := x.Sides[0].Message
		if m.Protocol != protocol.BedrockInvoke || len(m.Choices) != 1 || !strings.HasPrefix(m.Choices[0].Text, tc.text) || m.Choices[0].FinishReason != tc.finish {
			t.Errorf("%s: %s %+v", tc.file, m.Protocol, m.Choices)
		}
		if x.Sides[0].Side != tape.Upstream {
			t.Errorf("%s: side %s", tc.file, x.Sides[0].Side)
		}
	}
}
