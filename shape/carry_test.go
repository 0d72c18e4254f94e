package shape

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// clientEvents runs body through the engine of profile, pushing it in
// chunks of n bytes, and returns the client's events.
func clientEvents(t *testing.T, profile string, set map[string]string, body []byte, n int) []string {
	t.Helper()
	var out []string
	for _, e := range events(join(run(mustEngine(t, profile, set), splitEvery(body, n)))) {
		out = append(out, e.Data)
	}
	return out
}

func has(evs []string, substr string) bool {
	for _, e := range evs {
		if strings.Contains(e, substr) {
			return true
		}
	}
	return false
}

// TestAnthropicCutKeepsMessageDelta: the recorded Anthropic stream with a
// tool call ends with a message_stop no blank line ended. Through
// obsidian-xml the call becomes XML, and the stop reason and usage of the
// upstream's message_delta still reach the client (they used to be held
// for the message_stop that never came, and lost).
func TestAnthropicCutKeepsMessageDelta(t *testing.T) {
	t.Parallel()
	body := readFile(t, filepath.Join(realworld, "anthropic-sdk-tool-use-response.sse"))
	for _, n := range []int{1, 7, 64, len(body)} {
		evs := clientEvents(t, ProfileObsidianXML, nil, body, n)
		if !has(evs, `"stop_reason":"tool_use"`) || !has(evs, `"output_tokens":65`) {
			t.Fatalf("chunks of %d: the client lacks the message_delta (stop_reason tool_use, 65 output tokens): %q", n, evs)
		}
		out := join(run(mustEngine(t, ProfileObsidianXML, nil), splitEvery(body, n)))
		if got := assemble(t, out).text[0]; !strings.HasSuffix(got, "<use_tool>\n<name>get_weather</name>\n<location>Paris</location>\n</use_tool>") {
			t.Errorf("chunks of %d: the tool call is not carried as XML: %q", n, got)
		}
		if s := string(out); !strings.HasSuffix(strings.TrimSuffix(s, "\n"), `{"type":"message_stop"}`) || strings.HasSuffix(s, "\n\n") {
			t.Errorf("chunks of %d: the client does not end cut, as the upstream did: %q", n, s[len(s)-60:])
		}
	}
}

// chatChunk is a Chat Completions chunk whose choice 0 has delta d.
func chatChunk(d, finish string) string {
	fr := "null"
	if finish != "" {
		fr = `"` + finish + `"`
	}
	return `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt","choices":[{"index":0,"delta":` + d + `,"finish_reason":` + fr + "}]}\n\n"
}

// TestLegacyFunctionCallCarried: the deprecated delta.function_call is a
// tool call. Through obsidian-xml it becomes a <use_tool> block (it used to
// go through as it came, which Obsidian ignores: the call was lost);
// through the responses adapter a function_call item; through a profile
// whose client speaks Chat it still goes through as it came.
func TestLegacyFunctionCallCarried(t *testing.T) {
	t.Parallel()
	body := []byte(chatChunk(`{"role":"assistant","content":null,"function_call":{"name":"read","arguments":""}}`, "") +
		chatChunk(`{"function_call":{"arguments":"{\"path\":"}}`, "") +
		chatChunk(`{"function_call":{"arguments":"\"a.md\"}"}}`, "") +
		chatChunk(`{}`, "function_call") + "data: [DONE]\n\n")
	xml := assemble(t, join(run(mustEngine(t, ProfileObsidianXML, nil), splitEvery(body, 9))))
	if got := xml.text[0]; got != "<use_tool>\n<name>read</name>\n<path>a.md</path>\n</use_tool>" {
		t.Errorf("obsidian-xml text %q", got)
	}
	resp := assemble(t, join(run(mustEngine(t, ProfileResponses, nil), splitEvery(body, 9))))
	if len(resp.tools) != 1 || resp.tools[0] != `read({"path":"a.md"})` {
		t.Errorf("responses tool calls %q", resp.tools)
	}
	evs := clientEvents(t, ProfilePassthrough, map[string]string{SwHoldback: "on"}, body, 9)
	if !has(evs, `"function_call":{"arguments":"\"a.md\"}"}`) {
		t.Errorf("a Chat client should get the function_call as it came: %q", evs)
	}
}

// TestRefusalCarriedToResponses: the recorded refusal stream through the
// responses adapter gives a Responses client a refusal part, in the deltas
// and in response.completed (it used to get Chat Completions JSON in its
// Responses stream).
func TestRefusalCarriedToResponses(t *testing.T) {
	t.Parallel()
	body := readFile(t, filepath.Join(realworld, "openai-chat-refusal.sse"))
	var want strings.Builder
	for _, e := range events(body) {
		want.WriteString(gjson.Get(e.Data, "choices.0.delta.refusal").Str)
	}
	var deltas strings.Builder
	var completed string
	for _, e := range clientEvents(t, ProfileResponses, nil, body, 13) {
		r := gjson.Parse(e)
		switch r.Get("type").Str {
		case "response.refusal.delta":
			deltas.WriteString(r.Get("delta").Str)
		case "response.completed":
			completed = r.Get(`response.output.#(type=="message").content.#(type=="refusal").refusal`).Str
		case "":
			t.Errorf("an untyped event in the Responses stream: %s", e)
		}
	}
	if want.Len() == 0 || deltas.String() != want.String() || completed != want.String() {
		t.Errorf("refusal: deltas %q, completed %q, want %q", deltas.String(), completed, want.String())
	}
}

// TestAdapterRefusesWhatItCannotCarry: a Chat chunk with content the engine
// does not model (audio) cannot go into a Responses stream as it came: the
// client gets an error event naming it instead of Chat JSON or nothing. A
// chunk with nothing a client shows (no choices) is left out.
func TestAdapterRefusesWhatItCannotCarry(t *testing.T) {
	t.Parallel()
	body := []byte(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt","choices":[],"prompt_filter_results":[{"prompt_index":0}]}` + "\n\n" +
		chatChunk(`{"role":"assistant","content":"Hi"}`, "") +
		chatChunk(`{"audio":{"id":"audio_1","data":"UklGR"}}`, "") +
		chatChunk(`{}`, "stop") + "data: [DONE]\n\n")
	evs := clientEvents(t, ProfileResponses, nil, body, len(body))
	var errs []string
	for _, e := range evs {
		r := gjson.Parse(e)
		if r.Get("type").Str == "" {
			t.Errorf("Chat JSON in the Responses stream: %s", e)
		}
		if r.Get("type").Str == "error" {
			errs = append(errs, r.Get("error.message").Str)
		}
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "cannot carry delta.audio") {
		t.Fatalf("errors %q, want one naming delta.audio", errs)
	}
	if !has(evs, `"delta":"Hi"`) {
		t.Errorf("the text around it is lost: %q", evs)
	}
}

// ev is a typed SSE event (Responses, Anthropic): its name, and its data
// with the type first and then fields.
func ev(typ, fields string) string {
	return "event: " + typ + "\ndata: {\"type\":\"" + typ + "\"," + fields + "}\n\n"
}

// TestCustomToolCallAsXML: a Responses custom (free-form input) tool call
// through obsidian-xml becomes a <use_tool> block whose <input> holds the
// input (it used to go through as it came, which Obsidian ignores).
func TestCustomToolCallAsXML(t *testing.T) {
	t.Parallel()
	body := []byte(ev("response.created", `"response":{"id":"resp_1","model":"gpt-5","status":"in_progress","output":[]}`) +
		ev("response.output_item.added", `"output_index":0,"item":{"type":"custom_tool_call","id":"ctc_1","call_id":"call_1","name":"apply_patch","input":""}`) +
		ev("response.custom_tool_call_input.delta", `"output_index":0,"item_id":"ctc_1","delta":"*** Begin \"Patch\""`) +
		ev("response.custom_tool_call_input.delta", `"output_index":0,"item_id":"ctc_1","delta":"\n*** End"`) +
		ev("response.custom_tool_call_input.done", `"output_index":0,"item_id":"ctc_1","input":"*** Begin \"Patch\"\n*** End"`) +
		ev("response.output_item.done", `"output_index":0,"item":{"type":"custom_tool_call","id":"ctc_1","call_id":"call_1","name":"apply_patch","input":"*** Begin \"Patch\"\n*** End"}`) +
		ev("response.completed", `"response":{"id":"resp_1","model":"gpt-5","status":"completed","output":[]}`))
	a := assemble(t, join(run(mustEngine(t, ProfileObsidianXML, nil), splitEvery(body, 11))))
	if got := a.text[0]; got != "<use_tool>\n<name>apply_patch</name>\n<input>*** Begin \"Patch\"\n*** End</input>\n</use_tool>" {
		t.Errorf("text %q", got)
	}
}

// TestOpaqueItemsKept: an output item the engine does not model (a web
// search) goes through as it came and stays in the response.completed the
// engine writes; an Anthropic block it does not model (a server tool use)
// keeps its stop, and the engine numbers its own blocks after it.
func TestOpaqueItemsKept(t *testing.T) {
	t.Parallel()
	resp := []byte(ev("response.created", `"response":{"id":"resp_1","model":"gpt-5","status":"in_progress","output":[]}`) +
		ev("response.output_item.added", `"output_index":0,"item":{"type":"web_search_call","id":"ws_1","status":"in_progress"}`) +
		ev("response.output_item.done", `"output_index":0,"item":{"type":"web_search_call","id":"ws_1","status":"completed","action":{"type":"search","query":"paris weather"}}`) +
		ev("response.output_item.added", `"output_index":1,"item":{"type":"message","id":"msg_1","role":"assistant","content":[]}`) +
		ev("response.output_text.delta", `"output_index":1,"content_index":0,"item_id":"msg_1","delta":"Sunny."`) +
		ev("response.output_item.done", `"output_index":1,"item":{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"Sunny."}]}`) +
		ev("response.completed", `"response":{"id":"resp_1","model":"gpt-5","status":"completed","output":[]}`))
	var completed gjson.Result
	for _, e := range clientEvents(t, ProfileObsidianXML, nil, resp, 17) {
		if r := gjson.Parse(e); r.Get("type").Str == "response.completed" {
			completed = r.Get("response.output")
		}
	}
	if q := completed.Get(`#(type=="web_search_call").action.query`).Str; q != "paris weather" || completed.Get(`#(type=="message").content.0.text`).Str != "Sunny." {
		t.Errorf("response.completed output %s", completed.Raw)
	}

	ant := []byte(ev("message_start", `"message":{"id":"msg_1","type":"message","role":"assistant","model":"claude","content":[],"usage":{"input_tokens":1,"output_tokens":1}}`) +
		ev("content_block_start", `"index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}`) +
		ev("content_block_delta", `"index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\":\"paris\"}"}`) +
		ev("content_block_stop", `"index":0`) +
		ev("content_block_start", `"index":1,"content_block":{"type":"text","text":""}`) +
		ev("content_block_delta", `"index":1,"delta":{"type":"text_delta","text":"Sunny."}`) +
		ev("content_block_stop", `"index":1`) +
		ev("message_delta", `"delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}`) +
		ev("message_stop", `"x":0`))
	starts, stops := map[int64]string{}, map[int64]int{}
	for _, e := range clientEvents(t, ProfileObsidianXML, nil, ant, 23) {
		r := gjson.Parse(e)
		switch r.Get("type").Str {
		case "content_block_start":
			if prev, dup := starts[r.Get("index").Int()]; dup {
				t.Errorf("block %d started twice (%s, %s)", r.Get("index").Int(), prev, r.Get("content_block.type").Str)
			}
			starts[r.Get("index").Int()] = r.Get("content_block.type").Str
		case "content_block_stop":
			stops[r.Get("index").Int()]++
		}
	}
	if starts[0] != "server_tool_use" || starts[1] != "text" || stops[0] != 1 || stops[1] != 1 {
		t.Errorf("blocks started %v, stopped %v; want the server tool use at 0 and the text at 1, each stopped once", starts, stops)
	}
}
