package protocol

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/tape"
)

// providers is the repository's copy of the recorded provider streams (see
// fixtures/README.md).
const providers = "../fixtures/providers"

// providerCase is what the official SDK makes of one recorded provider
// stream (the rule each protocol follows is Protocol.Rule), and the
// anomalies seam must raise on it: none on a clean stream, one naming the
// error, block or abnormal end on the others.
type providerCase struct {
	// file is in providers, or in round3 when it starts "round3/".
	file    string
	framing framing.Kind
	proto   Protocol
	// text and reasoning: the start of the assembled text, and its length
	// in bytes (the whole text when short).
	text      string
	textLen   int
	reasoning string
	reasonLen int
	tools     []ToolCall // signatures compared by prefix
	servers   []ServerTool
	finish    string
	usage     *Usage
	errText   string
	anomalies []string // ids, in order
}

// providerPath is where a providerCase's file is.
func providerPath(file string) string {
	if strings.HasPrefix(file, "round3/") {
		return filepath.Join("../fixtures", file)
	}
	return filepath.Join(providers, file)
}

func providerCases() []providerCase {
	es, nd, arr := framing.EventStream, framing.NDJSON, framing.JSONArray
	return []providerCase{
		// Gemini / Vertex.
		{file: "gemini/gemini-fb-googleai-basic-reply-long.sse", proto: Gemini, text: "Okay, let's dive into the world of cats and dogs!", textLen: 8845,
			finish: "STOP", usage: &Usage{Input: 10, Output: 1996, Total: 2006}},
		{file: "gemini/gemini-fb-googleai-code-execution.sse", proto: Gemini, text: "To find the sum of the first 5 prime numbers", textLen: 228,
			finish: "STOP", usage: &Usage{Input: 21, Output: 126, Total: 485, Reasoning: 95}},
		{file: "gemini/gemini-fb-googleai-thinking-function-call.sse", proto: Gemini,
			reasoning: "**Calculating the Days**\n\nI've determined", reasonLen: 765,
			tools:  []ToolCall{{Index: 0, Name: "now", Arguments: "{}", Signature: "CiIBVKhc7vB+vaaq6rA/KC79"}},
			finish: "STOP", usage: &Usage{Input: 38, Output: 6, Total: 212, Reasoning: 168}},
		{file: "gemini/gemini-fb-googleai-recitation-no-content.sse", proto: Gemini, text: "text1text2text3text4text5text6text7text8",
			finish: "RECITATION", usage: &Usage{Input: 9, Output: 261, Total: 270}, anomalies: []string{"stream.blocked"}},
		{file: "gemini/gemini-fb-googleai-prompt-blocked-safety.sse", proto: Gemini, errText: "prompt blocked (SAFETY)",
			anomalies: []string{"stream.blocked"}},
		{file: "gemini/gemini-fb-vertexai-finish-reason-safety.sse", proto: Gemini, text: "<redacted>", finish: "SAFETY",
			usage: &Usage{Input: 10, Output: 66, Total: 76}, anomalies: []string{"stream.blocked"}},
		{file: "gemini/gemini-fb-vertexai-function-call-short.sse", proto: Gemini,
			tools: []ToolCall{{Index: 0, Name: "getTemperature", Arguments: `{"city":"San Jose"}`}}, finish: "STOP"},
		{file: "gemini/gemini-fb-vertexai-error-mid-stream.sse", proto: Gemini, text: "First Second ", finish: "STOP",
			errText: "499 CANCELLED The operation was cancelled.", anomalies: []string{"stream.after-end", "stream.error-event"}},
		{file: "gemini/gemini-openinference-sse-parallel-function-calls.sse", proto: Gemini,
			tools: []ToolCall{
				{Index: 0, ID: "dv8szvqe", Name: "get_weather", Arguments: `{"location":"Boston"}`, Signature: "EvsDCvgDAQw51sfOm202VhDM"},
				{Index: 1, ID: "j80tal12", Name: "get_weather", Arguments: `{"location":"New Delhi"}`},
			},
			finish: "STOP", usage: &Usage{Input: 71, Output: 33, Total: 197, Reasoning: 93}},
		{file: "gemini/gemini-langchaingo-json-array-stream.body.json", framing: arr, proto: Gemini,
			text: "Clementine, a calico with a perpetually grumpy face", textLen: 2582, finish: "STOP", usage: &Usage{Input: 8, Output: 578, Total: 586}},
		// Bedrock ConverseStream.
		{file: "bedrock/bedrock-converse-stream-claude3-tool-use.eventstream", framing: es, proto: BedrockConverse,
			text:   "Okay, let me check the weather for Barcelona using the available tool:",
			tools:  []ToolCall{{Index: 1, ID: "tooluse_yypYDr71TwCwByoyao4-Vg", Name: "get_weather", Arguments: `{"location": "Barcelona"}`}},
			finish: "tool_use", usage: &Usage{Input: 236, Output: 58, Total: 294}},
		{file: "bedrock/bedrock-converse-stream-nova-guardrail-mask.eventstream", framing: es, proto: BedrockConverse,
			text: "{ADDRESS} is the capital of Japan {Account Number}.", finish: "guardrail_intervened",
			usage: &Usage{Input: 54, Output: 18, Total: 72}, anomalies: []string{"stream.blocked"}},
		{file: "bedrock/bedrock-converse-stream-titan-guardrail.eventstream", framing: es, proto: BedrockConverse,
			text: "\nThe capital of {ADDRESS} is {ADDRESS}. The capital of {ADDRESS} is {ADDRESS}.", finish: "guardrail_intervened",
			usage: &Usage{Input: 17, Output: 16, Total: 33}, anomalies: []string{"stream.blocked"}},
		// Bedrock InvokeModelWithResponseStream.
		{file: "bedrock/bedrock-invoke-stream-claude3-messages.eventstream", framing: es, proto: BedrockInvoke,
			text: "Why did the distributed tracing span cross the road? To get to the other service!", finish: "end_turn",
			usage: &Usage{Input: 16, Output: 21}},
		{file: "bedrock/bedrock-invoke-stream-claude3-tool-use.eventstream", framing: es, proto: BedrockInvoke,
			text:   "Okay, let's get the current weather for San Francisco:",
			tools:  []ToolCall{{Index: 1, ID: "toolu_bdrk_01SmuLWbQxzvE6WD3Th711eg", Name: "get_weather", Arguments: `{"location": "San Francisco, CA", "unit": "fahrenheit"}`}},
			finish: "tool_use", usage: &Usage{Input: 273, Output: 88}},
		{file: "bedrock/bedrock-invoke-stream-titan-guardrail-blocked.eventstream", framing: es, proto: BedrockInvoke,
			text: "Input blocked", usage: &Usage{Input: 6, Output: 3}, anomalies: []string{"stream.blocked"}},
		// InvokeModelWithResponseStream of the models whose chunks are not
		// Anthropic events (recorded, but for Nova: see round3/MANIFEST.md):
		// each family's text joined up to its stop reason, which ends it.
		{file: "round3/bedrock-invoke-stream-titan-text-express.eventstream", framing: es, proto: BedrockInvoke,
			text:   "\n1 degree Fahrenheit is 0.56 degrees Celsius. Therefore, 212 degree Fahrenheit in Celsius would be 115.72.",
			finish: "FINISH", usage: &Usage{Input: 12, Output: 35}},
		{file: "round3/bedrock-invoke-stream-cohere-command-text.eventstream", framing: es, proto: BedrockInvoke,
			text: " To convert Fahrenheit to Celsius, you can use the formula:", textLen: 339, finish: "COMPLETE", usage: &Usage{Input: 9, Output: 91}},
		{file: "round3/bedrock-invoke-stream-llama2-13b.eventstream", framing: es, proto: BedrockInvoke,
			text: "  What is the conversion formula?", textLen: 254, finish: "length", usage: &Usage{Input: 17, Output: 100}},
		{file: "round3/bedrock-invoke-stream-mistral-7b.eventstream", framing: es, proto: BedrockInvoke,
			text: " To convert a temperature from Fahrenheit to Celsius", textLen: 259, finish: "length", usage: &Usage{Input: 25, Output: 100}},
		{file: "round3/bedrock-invoke-stream-nova-constructed.eventstream", framing: es, proto: BedrockInvoke,
			text:   "212 degrees Fahrenheit is 100 degrees Celsius: (212 - 32) × 5/9 = 100.",
			finish: "end_turn", usage: &Usage{Input: 11, Output: 24, Total: 0}},
		// Anthropic's server tools: run by Anthropic, not calls the client
		// answers.
		{file: "round3/llmanthropic-web-search-stream.1.sse", proto: Anthropic,
			text: "Based on the search results, here's the current weather in San Francisco:", textLen: 653,
			servers: []ServerTool{{Index: 0, ID: "srvtoolu_01SPfvT38PDPAFnkcrMNGUrM", Name: "web_search", Input: `{"query": "San Francisco weather today"}`,
				Result: "web_search_tool_result (10 results)"}},
			finish: "end_turn", usage: &Usage{Input: 10423, Output: 341}},
		// Cohere v2.
		{file: "cohere/cohere-v2-stream-text.sse", proto: Cohere, text: "Arrrr, matey! Shiver me timbers", textLen: 383,
			finish: "COMPLETE", usage: &Usage{Input: 69, Output: 110}},
		{file: "cohere/cohere-v2-stream-two-tool-calls.sse", proto: Cohere,
			reasoning: "I will search for the current time and weather in Tokyo.",
			tools: []ToolCall{
				{Index: 0, ID: "get_time_dg5wwc00d8v5", Name: "get_time", Arguments: "{\n    \"location\": \"Tokyo\"\n}"},
				{Index: 1, ID: "get_weather_bc8241gkqss5", Name: "get_weather", Arguments: "{\n    \"location\": \"Tokyo\"\n}"},
			},
			finish: "TOOL_CALL", usage: &Usage{Input: 968, Output: 83}},
		// Ollama.
		{file: "ollama/ollama-langchaingo-chat-stream.ndjson", framing: nd, proto: Ollama, text: "Okay, here we go!\n\n1, 2, 3, 4, 5\n",
			finish: "stop", usage: &Usage{Input: 16, Output: 22, Total: 38}},
		{file: "ollama/ollama-langchaingo-generate-stream.ndjson", framing: nd, proto: Ollama, text: "Okay, here we go!\n\n1, 2, 3, 4, 5\n",
			finish: "stop", usage: &Usage{Input: 16, Output: 22, Total: 38}},
		{file: "ollama/ollama-langchaingo-chat-stream-long.ndjson", framing: nd, proto: Ollama, text: "Okay, this is a surprisingly tricky question!", textLen: 677,
			finish: "stop", usage: &Usage{Input: 18, Output: 203, Total: 221}},
		{file: "ollama/ollama-openinference-chat-stream-thinking.ndjson", framing: nd, proto: Ollama, text: "1\n2\n3\n4\n5",
			reasoning: "Here's a thinking process:", reasonLen: 3070, finish: "stop", usage: &Usage{Input: 21, Output: 889, Total: 910}},
		{file: "ollama/ollama-openllmetry-chat-stream-llama3.ndjson", framing: nd, proto: Ollama, text: "Why did the OpenTelemetry agent go to therapy?", textLen: 212,
			finish: "stop", usage: &Usage{Input: 17, Output: 50, Total: 67}},
		{file: "ollama/ollama-openllmetry-generate-stream-llama3.ndjson", framing: nd, proto: Ollama, text: "A joke about OpenTelemetry!", textLen: 291,
			finish: "stop", usage: &Usage{Input: 17, Output: 71, Total: 88}},
		// Mistral and the OpenAI-compatible gateways (Chat Completions).
		{file: "mistral/mistral-stream-text.sse", proto: Chat, text: "Here's a light-hearted joke that combines OpenTelemetry", textLen: 297,
			finish: "stop", usage: &Usage{Input: 11, Output: 80, Total: 91}},
		{file: "mistral/mistral-stream-tool-call.sse", proto: Chat,
			tools:  []ToolCall{{Index: 0, ID: "EscTeQY62", Name: "get_weather", Arguments: `{"city": "San Francisco"}`}},
			finish: "tool_calls", usage: &Usage{Input: 96, Output: 23, Total: 119}},
		{file: "openai-compatible/openrouter-langchaingo-stream-processing-comment.sse", proto: Chat, text: "test response",
			finish: "stop", usage: &Usage{Input: 586, Output: 3, Total: 589}, anomalies: []string{"chat.repeated-fields"}},
		{file: "openai-compatible/together-stream-text.sse", proto: Chat, text: "1, 2, 3, 4, 5.",
			finish: "stop", usage: &Usage{Input: 41, Output: 15, Total: 56}, anomalies: []string{"chat.repeated-fields"}},
	}
}

// TestProviderStreams assembles every recorded provider stream, read in
// several splits, and checks the protocol detected, what it assembles to
// and the anomalies raised.
func TestProviderStreams(t *testing.T) {
	t.Parallel()
	for _, tc := range providerCases() {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			body, err := os.ReadFile(providerPath(tc.file))
			if err != nil {
				t.Fatal(err)
			}
			kind := tc.framing
			if kind == framing.Unknown {
				kind = framing.SSE
			}
			var first []byte
			for _, n := range []int{0, 1, 7, 100} {
				se := Parse(chunksOf(tape.Upstream, body, n), kind, nil)
				if len(se.Problems) > 0 {
					t.Fatalf("framing problems: %+v", se.Problems)
				}
				p := Detect("", se.Events)
				if p != tc.proto {
					t.Fatalf("chunks of %d: detected %s, want %s", n, p, tc.proto)
				}
				a := Assemble(p, se)
				checkProvider(t, a, tc)
				checkBorn(t, a, se.Events)
				got := []byte(renderAssembly(a))
				if first == nil {
					first = got
				} else if string(got) != string(first) {
					t.Fatalf("chunks of %d assemble differently:\n%s\nwant\n%s", n, got, first)
				}
			}
		})
	}
}

// checkBorn: every part the stream assembled says which events made it
// (for the findings that point at where a part was born), within the
// stream; the finish's event carries the finish reason (or Gemini's int
// enum of it; an Invoke frame's payload is base64, so not there).
func checkBorn(t *testing.T, a *Assembly, events []Event) {
	t.Helper()
	in := func(what string, b Born) {
		if b.First() < 0 || b.Last() < b.First() || b.Last() >= len(events) {
			t.Errorf("%s born at events %d..%d of %d", what, b.First(), b.Last(), len(events))
		}
	}
	m := a.Message
	if m.Usage != nil && len(events) > 0 {
		in("usage", m.UsageBorn)
	}
	if m.Error != "" {
		in("error", m.ErrorBorn)
	}
	for _, ch := range m.Choices {
		if ch.Reasoning != "" {
			in("reasoning", ch.ReasoningBorn)
		}
		if ch.FinishReason != "" {
			in("finish", ch.FinishBorn)
			if d := events[max(ch.FinishBorn.First(), 0)].Data; m.Protocol != BedrockInvoke && !strings.Contains(d, ch.FinishReason) && !strings.Contains(d, `"finishReason"`) {
				t.Errorf("finish %s born at event %d: %.200s", ch.FinishReason, ch.FinishBorn.First(), events[ch.FinishBorn.First()].Data)
			}
		}
		for _, tc := range ch.ToolCalls {
			in("tool call "+tc.Name, tc.Born)
		}
		for _, st := range ch.ServerTools {
			in("server tool "+st.Name, st.Born)
		}
	}
}

func renderAssembly(a *Assembly) string {
	var b strings.Builder
	b.WriteString(string(a.Message.Protocol) + " " + a.Message.Error + " " + a.Message.Status + "\n")
	for _, c := range a.Message.Choices {
		b.WriteString(strconv.Quote(c.Text) + strconv.Quote(c.Reasoning) + c.FinishReason + "\n")
		for _, tc := range c.ToolCalls {
			b.WriteString(tc.ID + tc.Name + tc.Arguments + tc.Signature + "\n")
		}
		for _, st := range c.ServerTools {
			b.WriteString("server " + st.ID + st.Name + st.Input + st.Result + "\n")
		}
	}
	for _, x := range a.Anomalies {
		b.WriteString(x.ID + " " + strconv.Itoa(x.Event) + " " + x.Msg + "\n")
	}
	return b.String()
}

func checkProvider(t *testing.T, a *Assembly, tc providerCase) {
	t.Helper()
	m := a.Message
	var ids []string
	for _, x := range a.Anomalies {
		ids = append(ids, x.ID)
	}
	if !slices.Equal(ids, tc.anomalies) {
		t.Errorf("anomalies %q, want %q: %+v", ids, tc.anomalies, a.Anomalies)
	}
	if m.Error != tc.errText {
		t.Errorf("error %q, want %q", m.Error, tc.errText)
	}
	if tc.usage != nil && (m.Usage == nil || *m.Usage != *tc.usage) {
		t.Errorf("usage %+v, want %+v", m.Usage, tc.usage)
	}
	if len(m.Choices) == 0 {
		if tc.text != "" || len(tc.tools) > 0 || tc.finish != "" {
			t.Fatalf("no choices")
		}
		return
	}
	ch := m.Choices[0]
	checkPrefix(t, "text", ch.Text, tc.text, tc.textLen)
	checkPrefix(t, "reasoning", ch.Reasoning, tc.reasoning, tc.reasonLen)
	if ch.FinishReason != tc.finish {
		t.Errorf("finish %q, want %q", ch.FinishReason, tc.finish)
	}
	servers := make([]ServerTool, len(ch.ServerTools))
	for i, st := range ch.ServerTools {
		st.Born = Born{}
		servers[i] = st
	}
	if !reflect.DeepEqual(servers, tc.servers) && (len(servers) > 0 || len(tc.servers) > 0) {
		t.Errorf("server tools %+v, want %+v", servers, tc.servers)
	}
	if len(ch.ToolCalls) != len(tc.tools) {
		t.Fatalf("tool calls %+v, want %+v", ch.ToolCalls, tc.tools)
	}
	for i, want := range tc.tools {
		got := ch.ToolCalls[i]
		if !strings.HasPrefix(got.Signature, want.Signature) || (want.Signature == "") != (got.Signature == "") {
			t.Errorf("tool %d signature %.30q, want prefix %q", i, got.Signature, want.Signature)
		}
		got.Signature, want.Signature = "", ""
		got.Born = Born{}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("tool %d = %+v, want %+v", i, got, want)
		}
	}
}

func checkPrefix(t *testing.T, what, got, want string, n int) {
	t.Helper()
	if n == 0 {
		if got != want {
			t.Errorf("%s %q, want %q", what, got, want)
		}
		return
	}
	if !strings.HasPrefix(got, want) || len(got) != n {
		t.Errorf("%s %.60q (%d bytes), want it to start %q and have %d bytes", what, got, len(got), want, n)
	}
}
