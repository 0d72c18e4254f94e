package protocol

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/seam-dev/seam/tape"
)

// manifestCase holds the expected values that ../shared/realworld/MANIFEST.md
// copies from each source repository's own tests (see fixtures/README.md).
type manifestCase struct {
	file     string
	protocol Protocol
	choice   int
	text     string
	refusal  string
	finish   string
	tools    []ToolCall
	usage    *Usage
}

func manifestCases() []manifestCase {
	return []manifestCase{
		{file: "openai-chat-parallel-tool-calls.sse", protocol: Chat, finish: "tool_calls",
			tools: []ToolCall{
				{Index: 0, ID: "call_JMW1whyEaYG438VE1OIflxA2", Name: "GetWeatherArgs", Arguments: `{"city": "Edinburgh", "country": "GB", "units": "c"}`},
				{Index: 1, ID: "call_DNYTawLBoN8fj3KN6qU9N1Ou", Name: "get_stock_price", Arguments: `{"ticker": "AAPL", "exchange": "NASDAQ"}`},
			},
			usage: &Usage{Input: 149, Output: 60, Total: 209}},
		{file: "openai-chat-n3-choices.sse", protocol: Chat, choice: 0, finish: "stop", text: `{"city":"San Francisco","temperature":65,"units":"f"}`},
		{file: "openai-chat-n3-choices.sse", protocol: Chat, choice: 1, finish: "stop", text: `{"city":"San Francisco","temperature":61,"units":"f"}`},
		{file: "openai-chat-n3-choices.sse", protocol: Chat, choice: 2, finish: "stop", text: `{"city":"San Francisco","temperature":59,"units":"f"}`},
		{file: "openai-chat-finish-length.sse", protocol: Chat, finish: "length", text: `{"`, usage: &Usage{Input: 79, Output: 1, Total: 80}},
		{file: "openai-chat-long-text.sse", protocol: Chat, finish: "stop", usage: &Usage{Input: 19, Output: 177, Total: 196},
			text: "\n  {\n    \"location\": \"San Francisco, CA\",\n    \"weather\": {\n      \"temperature\": \"18°C\",\n      \"condition\": \"Partly Cloudy\",\n      \"humidity\": \"72%\",\n      \"windSpeed\": \"15 km/h\",\n      \"windDirection\": \"NW\"\n    },\n    \"forecast\": [\n      {\n        \"day\": \"Monday\",\n        \"high\": \"20°C\",\n        \"low\": \"14°C\",\n        \"condition\": \"Sunny\"\n      },\n      {\n        \"day\": \"Tuesday\",\n        \"high\": \"19°C\",\n        \"low\": \"15°C\",\n        \"condition\": \"Mostly Cloudy\"\n      },\n      {\n        \"day\": \"Wednesday\",\n        \"high\": \"18°C\",\n        \"low\": \"14°C\",\n        \"condition\": \"Cloudy\"\n      }\n    ]\n  }\n"},
		{file: "openai-chat-refusal.sse", protocol: Chat, finish: "stop", refusal: "I'm sorry, I can't assist with that request."},
		{file: "pydantic-ai-openai-responses-stream.1.sse", protocol: Responses, finish: "completed",
			tools: []ToolCall{{Index: 0, ID: "call_kL0PCQV7M2WMoVX8V8OtYSAL", Name: "get_capital", Arguments: `{"country":"France"}`}}},
		{file: "pydantic-ai-openai-responses-stream.2.sse", protocol: Responses, finish: "completed", text: "The capital of France is Paris.",
			usage: &Usage{Input: 278, Output: 9, Total: 287}},
		{file: "pydantic-ai-openai-responses-streaming-usage.sse", protocol: Responses, finish: "completed",
			tools: []ToolCall{{Index: 1, Name: "final_result", Arguments: `{"result":6666}`}},
			usage: &Usage{Input: 53, Output: 469, Reasoning: 448}},
		{file: "anthropic-sdk-basic-response.sse", protocol: Anthropic, finish: "end_turn", text: "Hello there!"},
		{file: "anthropic-sdk-tool-use-response.sse", protocol: Anthropic, finish: "tool_use", text: "I'll check the current weather in Paris for you.",
			tools: []ToolCall{{Index: 1, ID: "toolu_01NRLabsLyVHZPKxbKvkfSMn", Name: "get_weather", Arguments: `{"location": "Paris"}`}},
			usage: &Usage{Input: 377, Output: 65}},
		{file: "anthropic-sdk-incomplete-partial-json-response.sse", protocol: Anthropic, finish: "max_tokens",
			text: "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. Let me do that for you now.",
			tools: []ToolCall{{Index: 1, ID: "toolu_01EKqbqmZrGRXy18eN7m9kvY", Name: "make_file",
				Arguments: "{\"filename\": \"taxes.txt\", \"lines_of_text\": [\n\"# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s\",\n\"\",\n\"## INTRODUCTION\",\n\"\",\n\"Filing taxes"}},
			usage: &Usage{Input: 450, Output: 124}},
	}
}

func TestManifestExpectedValues(t *testing.T) {
	t.Parallel()
	for _, tc := range manifestCases() {
		for _, chunk := range []int{0, 7, 333} {
			t.Run(tc.file+"/"+strconv.Itoa(tc.choice)+"/chunk"+strconv.Itoa(chunk), func(t *testing.T) {
				t.Parallel()
				a, _ := assembleFile(t, tc.file, chunk)
				checkMessage(t, &a.Message, tc)
			})
		}
	}
}

func checkMessage(t *testing.T, m *Message, tc manifestCase) {
	t.Helper()
	if m.Protocol != tc.protocol {
		t.Fatalf("protocol = %s, want %s", m.Protocol, tc.protocol)
	}
	var ch *Choice
	for i := range m.Choices {
		if m.Choices[i].Index == tc.choice {
			ch = &m.Choices[i]
		}
	}
	if ch == nil {
		t.Fatalf("no choice %d in %+v", tc.choice, m.Choices)
	}
	if ch.Text != tc.text {
		t.Errorf("text = %q, want %q", ch.Text, tc.text)
	}
	if ch.Refusal != tc.refusal {
		t.Errorf("refusal = %q, want %q", ch.Refusal, tc.refusal)
	}
	if ch.FinishReason != tc.finish {
		t.Errorf("finish = %q, want %q", ch.FinishReason, tc.finish)
	}
	if len(ch.ToolCalls) != len(tc.tools) {
		t.Fatalf("tool calls = %+v, want %+v", ch.ToolCalls, tc.tools)
	}
	for i, want := range tc.tools {
		got := ch.ToolCalls[i]
		got.Born = Born{} // TestBorn checks it
		if want.ID == "" {
			got.ID = ""
		}
		if got != want {
			t.Errorf("tool %d = %+v, want %+v", i, got, want)
		}
	}
	if tc.usage != nil {
		if m.Usage == nil {
			t.Fatalf("no usage, want %+v", tc.usage)
		}
		u := *m.Usage
		if tc.usage.Total == 0 {
			u.Total = 0
		}
		if tc.usage.Reasoning == 0 {
			u.Reasoning = 0
		}
		u.CacheRead, u.CacheCreation = 0, 0
		if u != *tc.usage {
			t.Errorf("usage = %+v, want %+v", u, *tc.usage)
		}
	}
}

// TestResponsesFinalMatchesStream checks that the final output a Responses
// stream claims (response.completed) is parsed and agrees with the deltas.
func TestResponsesFinalMatchesStream(t *testing.T) {
	t.Parallel()
	a, _ := assembleFile(t, "pydantic-ai-openai-responses-stream.2.sse", 0)
	if a.Message.Final == nil || a.Message.Final.Text() != "The capital of France is Paris." {
		t.Fatalf("final = %+v", a.Message.Final)
	}
	if a.Message.ID != "resp_67e554a21aa88191b65876ac5e5bbe0406c52f0e511c76ed" || a.Message.Model != "gpt-4o-2024-08-06" {
		t.Errorf("id/model = %s %s", a.Message.ID, a.Message.Model)
	}
	for _, x := range a.Anomalies {
		if x.ID == "final.mismatch" {
			t.Errorf("unexpected mismatch: %+v", x)
		}
	}
}

func TestTextSpansPointAtEvents(t *testing.T) {
	t.Parallel()
	a, se := assembleFile(t, "openai-chat-long-text.sse", 100)
	ch := a.Message.Choices[0]
	at := strings.Index(ch.Text, "Tuesday")
	ev := EventAt(ch.Spans, at)
	if ev < 0 || !strings.Contains(se.Events[ev].Data, "Tues") {
		t.Fatalf("byte %d maps to event %d %q", at, ev, se.Events[max(ev, 0)].Data)
	}
	if c := se.Events[ev].Chunk; !bytes.Contains(se.Chunks[c].Data, []byte("data")) && c != tape.ChunkAt(se.Chunks, se.Events[ev].Off) {
		t.Errorf("chunk %d does not hold offset %d", c, se.Events[ev].Off)
	}
}

// TestBorn: each tool call, the finish reason and the usage point at the
// events that carried them, whatever the chunking: the call's first event
// names it (or carries its id), its last comes no earlier, and the finish
// and usage events hold what was assembled from them.
func TestBorn(t *testing.T) {
	t.Parallel()
	for _, tc := range manifestCases() {
		for _, chunk := range []int{0, 7} {
			t.Run(tc.file+"/chunk"+strconv.Itoa(chunk), func(t *testing.T) {
				a, se := assembleFile(t, tc.file, chunk)
				m := &a.Message
				var ch *Choice
				for i := range m.Choices {
					if m.Choices[i].Index == tc.choice {
						ch = &m.Choices[i]
					}
				}
				data := func(ev int) string {
					if ev < 0 || ev >= len(se.Events) {
						t.Fatalf("event %d out of range (%d events)", ev, len(se.Events))
					}
					return se.Events[ev].Data
				}
				for _, call := range ch.ToolCalls {
					first, last := call.Born.First(), call.Born.Last()
					if d := data(first); !strings.Contains(d, call.Name) {
						t.Errorf("call %s born at event %d, which does not name it: %s", call.Name, first, d)
					}
					if last < first {
						t.Errorf("call %s: last event %d before first %d", call.Name, last, first)
					}
				}
				if ch.FinishReason != "" {
					if d := data(ch.FinishBorn.Last()); !strings.Contains(d, `"`+ch.FinishReason+`"`) {
						t.Errorf("finish %q born at event %d: %s", ch.FinishReason, ch.FinishBorn.Last(), d)
					}
				}
				if m.Usage != nil {
					if d := data(m.UsageBorn.Last()); !strings.Contains(d, "usage") {
						t.Errorf("usage born at event %d, which carries none: %s", m.UsageBorn.Last(), d)
					}
				}
			})
		}
	}
}
