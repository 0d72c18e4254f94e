package shape

import (
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/seam-dev/seam/sse"
)

// decodeOnly is a decoding engine with every transform off: decode the
// upstream protocol and encode it again as the same protocol.
func decodeOnly() Engine { return newShaper(config{incrementalArgs: true, decodeAlways: true}) }

func TestRoundTripRealworld(t *testing.T) {
	t.Parallel()
	// Expected values from ../shared/realworld/MANIFEST.md.
	want := map[string]struct {
		text  string
		tools []string
	}{
		"openai-chat-parallel-tool-calls.sse": {"", []string{
			`GetWeatherArgs({"city": "Edinburgh", "country": "GB", "units": "c"})`,
			`get_stock_price({"ticker": "AAPL", "exchange": "NASDAQ"})`}},
		"openai-chat-finish-length.sse":                    {`{"`, nil},
		"pydantic-ai-openai-responses-stream.1.sse":        {"", []string{`get_capital({"country":"France"})`}},
		"pydantic-ai-openai-responses-stream.2.sse":        {"The capital of France is Paris.", nil},
		"pydantic-ai-openai-responses-streaming-usage.sse": {"", []string{`final_result({"result":6666})`}},
		"anthropic-sdk-basic-response.sse":                 {"Hello there!", nil},
		"anthropic-sdk-tool-use-response.sse": {"I'll check the current weather in Paris for you.",
			[]string{`get_weather({"location": "Paris"})`}},
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, path := range realworldSSE(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			body := readFile(t, path)
			up := assemble(t, body)
			if w, ok := want[name]; ok {
				if up.text[0] != w.text || !reflect.DeepEqual(up.tools, w.tools) {
					t.Fatalf("upstream assembles to %q %q; manifest says %q %q", up.text[0], up.tools, w.text, w.tools)
				}
			}
			out := join(run(decodeOnly(), randomChunks(r, body, 200)))
			got := assemble(t, out)
			if !reflect.DeepEqual(got, up) {
				t.Errorf("round trip assembles to\n%v %q\nwant\n%v %q", got.text, got.tools, up.text, up.tools)
			}
			// Byte-stable: the same input gives the same output.
			if again := join(run(decodeOnly(), [][]byte{body})); string(again) != string(out) {
				t.Errorf("output depends on chunking or is not deterministic")
			}
		})
	}
}

// TestRoundTripChatFrames: a Chat Completions stream re-encoded as Chat
// Completions has one client frame per upstream event, and a refusal (a
// delta field the engine does not model) passes through verbatim.
func TestRoundTripChatFrames(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"openai-chat-long-text.sse", "openai-chat-n3-choices.sse", "openai-chat-refusal.sse", "openai-chat-parallel-tool-calls.sse"} {
		body := readFile(t, filepath.Join(realworld, name))
		frames := run(decodeOnly(), [][]byte{body})
		if n := len(events(body)); len(frames) != n {
			t.Errorf("%s: %d frames for %d upstream events", name, len(frames), n)
		}
		if name == "openai-chat-refusal.sse" {
			for _, ev := range events(body) {
				if strings.Contains(ev.Data, `"refusal":"I`) && !strings.Contains(string(join(frames)), ev.Data) {
					t.Errorf("refusal chunk not forwarded verbatim: %s", ev.Data)
				}
			}
		}
	}
}

func TestResponsesAdapter(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"openai-chat-parallel-tool-calls.sse", "openai-chat-long-text.sse"} {
		body := readFile(t, filepath.Join(realworld, name))
		e := mustEngine(t, ProfileResponses, nil)
		out := join(run(e, sse.SplitEvents(body)))
		up, got := assemble(t, body), assemble(t, out)
		if up.text[0] != got.text[0] || !reflect.DeepEqual(up.tools, got.tools) {
			t.Errorf("%s: responses client assembles %q %q, want %q %q", name, got.text[0], got.tools, up.text[0], up.tools)
		}
		evs := events(out)
		if evs[0].Type != "response.created" || evs[len(evs)-1].Type != "response.completed" {
			t.Errorf("%s: stream runs %s … %s", name, evs[0].Type, evs[len(evs)-1].Type)
		}
		for i, ev := range evs {
			if !strings.Contains(ev.Data, `"sequence_number":`+strconv.Itoa(i)+`,`) {
				t.Errorf("%s: event %d (%s) lacks sequence_number %d", name, i, ev.Type, i)
				break
			}
		}
	}
	// The incident through obsidian-xml + responses-adapter: response.completed
	// carries exactly the joined deltas, so the pre-fix corruption shows there.
	body := incidentBody(t)
	for _, hb := range []string{"off", "on"} {
		e := mustEngine(t, ProfileObsidianXML, map[string]string{SwResponsesAdapter: "on", SwHoldback: hb})
		evs := events(join(run(e, sse.SplitEvents(body))))
		last := evs[len(evs)-1]
		if last.Type != "response.completed" {
			t.Fatalf("last event %s", last.Type)
		}
		if bad := strings.Contains(last.Data, `</use_tool<use_tool>`); bad != (hb == "off") {
			t.Errorf("holdback=%s: response.completed has </use_tool<use_tool> = %v", hb, bad)
		}
	}
}

// TestPropertyRechunking: however the incident's upstream bytes are split
// (inside a UTF-8 rune, inside an event, between "<" and "use"),
// obsidian-xml with holdback on gives the same client stream and exactly the
// upstream text.
func TestPropertyRechunking(t *testing.T) {
	t.Parallel()
	body := incidentBody(t)
	want := join(run(mustEngine(t, ProfileObsidianXML, nil), [][]byte{body}))
	upstream := strings.Join(incidentDeltas(t), "")
	if got := assemble(t, want).text[0]; got != upstream {
		t.Fatalf("whole-body run assembles to %q", got)
	}
	// Split points that matter: inside the first multi-byte rune (’), and
	// around the events carrying "<", "use", "_tool".
	rune0 := strings.Index(string(body), "’")
	lt := strings.Index(string(body), `"content":"<"`)
	special := [][]int{{rune0 + 1}, {rune0 + 2}, {lt + 11, lt + 12}, {lt + 12, lt + 200, lt + 400}}
	r := rand.New(rand.NewPCG(5, 6))
	cases := [][][]byte{splitEvery(body, 1), splitEvery(body, 7)}
	for _, cuts := range special {
		cases = append(cases, cutAt(body, cuts))
	}
	for range 100 {
		cases = append(cases, randomChunks(r, body, 1+r.IntN(300)))
	}
	for i, chunks := range cases {
		got := join(run(mustEngine(t, ProfileObsidianXML, nil), chunks))
		if string(got) != string(want) {
			t.Fatalf("chunking %d (%d chunks): client stream differs; text %q", i, len(chunks), assemble(t, got).text[0])
		}
	}
}

func cutAt(b []byte, cuts []int) [][]byte {
	var out [][]byte
	prev := 0
	for _, c := range cuts {
		out = append(out, b[prev:c])
		prev = c
	}
	return append(out, b[prev:])
}

func TestResponsesAdapterShape(t *testing.T) {
	t.Parallel()
	c := &chatFixture{id: "chatcmpl-r1", model: "m"}
	c.role()
	c.chunk(`{"reasoning_content":"Think."}`, "null")
	c.text("Hi")
	c.text(" there")
	c.chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":"}}]}`, "null")
	c.chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]}`, "null")
	c.finish("tool_calls")
	c.b.WriteString(`data: {"id":"chatcmpl-r1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}}` + "\n\n")
	body := c.done()
	out := join(run(mustEngine(t, ProfileResponses, nil), sse.SplitEvents([]byte(body))))
	var types []string
	for _, ev := range events(out) {
		types = append(types, strings.TrimPrefix(ev.Type, "response."))
	}
	want := "created in_progress output_item.added reasoning_summary_part.added reasoning_summary_text.delta reasoning_summary_text.done output_item.done " +
		"output_item.added content_part.added output_text.delta output_text.delta output_text.done content_part.done output_item.done " +
		"output_item.added function_call_arguments.delta function_call_arguments.delta function_call_arguments.done output_item.done completed"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("events:\n%s\nwant\n%s", got, want)
	}
	evs := events(out)
	done := evs[len(evs)-1].Data
	for _, w := range []string{`"id":"resp_r1"`, `"status":"completed"`, `"text":"Hi there"`, `"arguments":"{\"a\":1}","call_id":"call_1","name":"f"`,
		`"usage":{"input_tokens":5,"output_tokens":7,"total_tokens":12}`} {
		if !strings.Contains(done, w) {
			t.Errorf("response.completed lacks %s:\n%s", w, done)
		}
	}
}

// decodeAll runs a decoder over an SSE body and describes each normalized
// event in one short line.
func decodeAll(d decoder, body string) []string {
	var m Meta
	var out []string
	desc := func(evs []Event) {
		for _, e := range evs {
			s := e.Kind.String()
			switch e.Kind {
			case KindToolStart:
				s += " " + strconv.Itoa(e.Index) + " " + e.ID + " " + e.Name
			case KindToolArgs:
				s += " " + strconv.Itoa(e.Index) + " " + e.Text
			case KindToolEnd:
				s += " " + strconv.Itoa(e.Index)
			case KindUsage, KindError, KindOpaque:
				s += " " + e.Raw
			default:
				if e.Text != "" {
					s += " " + e.Text
				}
			}
			if e.Choice != 0 {
				s = "c" + strconv.Itoa(e.Choice) + " " + s
			}
			out = append(out, s)
		}
	}
	for _, ev := range events([]byte(body)) {
		desc(d.decode(nil, &ev, &m))
	}
	desc(d.finish(nil))
	return out
}

func TestDecoders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		dec  decoder
		body string
		want string
	}{
		{"chat error mid-stream", &chatDecoder{}, `data: {"choices":[{"index":0,"delta":{"content":"a"}}]}` + "\n\n" +
			`data: {"error":{"message":"boom","code":"tool_use_failed"}}` + "\n\n",
			`text a|error {"message":"boom","code":"tool_use_failed"}`},
		{"chat usage and filter chunks", &chatDecoder{}, `data: {"choices":[],"prompt_filter_results":[{"x":1}]}` + "\n\n" +
			`data: {"choices":[],"usage":{"prompt_tokens":1}}` + "\n\n",
			`opaque {"choices":[],"prompt_filter_results":[{"x":1}]}|usage {"prompt_tokens":1}`},
		{"chat n=2 and tools closed at finish", &chatDecoder{}, `data: {"choices":[{"index":1,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{}"}}]}}]}` + "\n\n" +
			`data: {"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"},{"index":1,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n" + "data: [DONE]\n\n",
			`c1 role assistant|c1 tool-start 0 c f|c1 tool-args 0 {}|text x|finish stop|c1 tool-end 0|c1 finish tool_calls|done`},
		{"chat truncated closes tools", &chatDecoder{}, `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":2,"function":{"arguments":"{"}}]}}]}` + "\n\n",
			`tool-start 2  |tool-args 2 {|tool-end 2`},
		{"anthropic input given at start", &anthropicDecoder{}, "event: content_block_start\n" + `data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"n","input":{"a":1}}}` + "\n\n" +
			"event: content_block_stop\n" + `data: {"type":"content_block_stop","index":1}` + "\n\n" +
			"event: message_delta\n" + `data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}` + "\n\n",
			`tool-start 1 t n|tool-args 1 {"a":1}|tool-end 1|finish tool_calls|usage {"output_tokens":3}`},
		{"anthropic repeated tool start opens once", &anthropicDecoder{}, "event: content_block_start\n" + `data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"n","input":{}}}` + "\n\n" +
			"event: content_block_start\n" + `data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"n","input":{}}}` + "\n\n" +
			"event: content_block_delta\n" + `data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{}"}}` + "\n\n" +
			"event: content_block_stop\n" + `data: {"type":"content_block_stop","index":1}` + "\n\n" +
			"event: message_stop\n" + `data: {"type":"message_stop"}` + "\n\n",
			`tool-start 1 t n|tool-args 1 {}|tool-end 1|done`},
		{"anthropic unknown block and delta", &anthropicDecoder{}, "event: content_block_delta\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s"}}` + "\n\n",
			`opaque {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"s"}}`},
		{"responses failed", &responsesDecoder{}, "event: response.failed\n" + `data: {"type":"response.failed","response":{"status":"failed","error":{"code":"x"}}}` + "\n\n",
			`error {"code":"x"}|finish error|done`},
		{"responses args only in done", &responsesDecoder{}, `data: {"type":"response.output_item.added","output_index":2,"item":{"type":"function_call","call_id":"c","name":"f"}}` + "\n\n" +
			`data: {"type":"response.function_call_arguments.done","output_index":2,"arguments":"{}"}` + "\n\n" +
			`data: {"type":"response.output_item.done","output_index":2,"item":{"type":"function_call","arguments":"{}"}}` + "\n\n" +
			`data: {"type":"response.web_search_call.searching","output_index":3}` + "\n\n",
			`tool-start 2 c f|tool-args 2 {}|tool-end 2|opaque {"type":"response.web_search_call.searching","output_index":3}`},
	} {
		if got := strings.Join(decodeAll(tc.dec, tc.body), "|"); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
