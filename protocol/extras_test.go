package protocol

import (
	"bytes"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/tape"
)

// assembleBody parses body in the framing kind and assembles it in its
// detected protocol.
func assembleBody(t *testing.T, kind framing.Kind, url, body string) (*Assembly, *Side) {
	t.Helper()
	se := Parse(chunksOf(tape.Upstream, []byte(body), 5), kind, nil)
	return Assemble(Detect(url, se.Events), se), se
}

func anomalyIDs(a *Assembly) []string {
	var ids []string
	for _, x := range a.Anomalies {
		ids = append(ids, x.ID)
	}
	return ids
}

// TestOpenAICompatibleExtras covers the Chat Completions extras of
// docs/PROTOCOLS.md#mistral that no recorded stream has: Mistral's typed content
// parts, arguments given as an object, the reasoning channels kept apart,
// and the in-band errors a 200 stream can carry.
func TestOpenAICompatibleExtras(t *testing.T) {
	t.Parallel()
	const done = "data: [DONE]\n\n"
	chunk := func(s string) string { return "data: " + s + "\n\n" }
	for _, c := range []struct {
		name                 string
		body                 string
		text, reasoning, err string
		details              string
		args                 string
		anomalies            []string
	}{
		{name: "mistral typed parts",
			body: chunk(`{"choices":[{"index":0,"delta":{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"Let me "},{"type":"text","text":"think."}]}]}}]}`) +
				chunk(`{"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"Paris"},{"type":"reference","reference_ids":[1]}]}}]}`) +
				chunk(`{"choices":[{"index":0,"delta":{"content":"."},"finish_reason":"stop"}]}`) + done,
			text: "Paris.", reasoning: "Let me think."},
		{name: "mistral object arguments",
			body: chunk(`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"abcdefghi","function":{"name":"f","arguments":{"a":1}}}]},"finish_reason":"tool_calls"}]}`) + done,
			args: `{"a":1}`},
		{name: "reasoning channels apart",
			body: chunk(`{"choices":[{"index":0,"delta":{"reasoning_content":"R1","reasoning":"R1","reasoning_details":[{"type":"reasoning.text","text":"R1","signature":"sig"}]}}]}`) +
				chunk(`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`) + done,
			text: "ok", reasoning: "R1", details: `[{"type":"reasoning.text","text":"R1","signature":"sig"}]`},
		{name: "openrouter error with choices",
			body: chunk(`{"choices":[{"index":0,"delta":{"content":"par"}}]}`) +
				chunk(`{"error":{"code":502,"message":"Provider returned error"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}`) + done,
			text: "par", err: "502: Provider returned error", anomalies: []string{"stream.error-event"}},
		{name: "vllm object error",
			body: chunk(`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}`) +
				chunk(`{"object":"error","message":"out of memory","type":"InternalServerError"}`) + done,
			text: "a", err: "InternalServerError: out of memory", anomalies: []string{"stream.error-event"}},
		{name: "finish_reason error alone",
			body: chunk(`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"error"}]}`) + done,
			text: "a", err: "finish_reason error", anomalies: []string{"stream.error-event"}},
		{name: "groq usage and error",
			body: chunk(`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}],"x_groq":{"usage":{"prompt_tokens":2,"completion_tokens":1}}}`) +
				chunk(`{"choices":[],"x_groq":{"error":"stopped early"}}`) + done,
			text: "a", err: "stopped early", anomalies: []string{"stream.error-event"}},
		{name: "null error is no error",
			body: chunk(`{"error":null,"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}`) + done,
			text: "a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, _ := assembleBody(t, framing.SSE, "/v1/chat/completions", c.body)
			ch := a.Message.Choices[0]
			if ch.Text != c.text || ch.Reasoning != c.reasoning || a.Message.Error != c.err || ch.ReasoningDetails != c.details {
				t.Errorf("text %q reasoning %q error %q details %s; want %q %q %q %s", ch.Text, ch.Reasoning, a.Message.Error, ch.ReasoningDetails, c.text, c.reasoning, c.err, c.details)
			}
			if c.args != "" && (len(ch.ToolCalls) != 1 || ch.ToolCalls[0].Arguments != c.args) {
				t.Errorf("tool calls %+v, want arguments %s", ch.ToolCalls, c.args)
			}
			if ids := anomalyIDs(a); !slices.Equal(ids, c.anomalies) {
				t.Errorf("anomalies %q, want %q", ids, c.anomalies)
			}
			if c.name == "groq usage and error" && (a.Message.Usage == nil || a.Message.Usage.Input != 2) {
				t.Errorf("usage %+v, want x_groq's", a.Message.Usage)
			}
		})
	}
}

// esMessage encodes one event-stream message.
func esMessage(t *testing.T, b *bytes.Buffer, msgType, name, payload string, more ...eventstream.Header) {
	t.Helper()
	m := eventstream.Message{Payload: []byte(payload)}
	m.Headers.Set(":message-type", eventstream.StringValue(msgType))
	switch msgType {
	case "event":
		m.Headers.Set(":event-type", eventstream.StringValue(name))
	case "exception":
		m.Headers.Set(":exception-type", eventstream.StringValue(name))
	}
	for _, h := range more {
		m.Headers.Set(h.Name, h.Value)
	}
	if err := eventstream.NewEncoder().Encode(b, m); err != nil {
		t.Fatal(err)
	}
}

// TestBedrockErrorsAndReasoning: an exception message mid-stream is the
// in-band error, an error message carries its code and message in
// headers, and reasoningContent is joined apart with its signature.
func TestBedrockErrorsAndReasoning(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	esMessage(t, &b, "event", "messageStart", `{"role":"assistant"}`)
	esMessage(t, &b, "event", "contentBlockDelta", `{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"hmm "}}}`)
	esMessage(t, &b, "event", "contentBlockDelta", `{"contentBlockIndex":0,"delta":{"reasoningContent":{"signature":"SIG"}}}`)
	esMessage(t, &b, "event", "contentBlockStop", `{"contentBlockIndex":0}`)
	esMessage(t, &b, "event", "contentBlockDelta", `{"contentBlockIndex":1,"delta":{"text":"Hel"}}`)
	esMessage(t, &b, "exception", "throttlingException", `{"message":"Too many tokens, please wait."}`)
	a, se := assembleBody(t, framing.EventStream, "", b.String())
	ch := a.Message.Choices[0]
	if a.Message.Protocol != BedrockConverse || ch.Text != "Hel" || ch.Reasoning != "hmm " || ch.Signature != "SIG" {
		t.Errorf("%s: text %q reasoning %q signature %q", a.Message.Protocol, ch.Text, ch.Reasoning, ch.Signature)
	}
	if a.Message.Error != "throttlingException: Too many tokens, please wait." || !slices.Equal(anomalyIDs(a), []string{"stream.error-event"}) || a.Terminal != 5 {
		t.Errorf("error %q anomalies %q terminal %d", a.Message.Error, anomalyIDs(a), a.Terminal)
	}
	if se.Events[5].MessageType != "exception" {
		t.Errorf("event 5 %+v", se.Events[5])
	}

	b.Reset()
	esMessage(t, &b, "event", "messageStart", `{"role":"assistant"}`)
	esMessage(t, &b, "error", "", "", eventstream.Header{Name: ":error-code", Value: eventstream.StringValue("InternalFailure")},
		eventstream.Header{Name: ":error-message", Value: eventstream.StringValue("boom")})
	a, _ = assembleBody(t, framing.EventStream, "", b.String())
	if a.Message.Error != "InternalFailure: boom" || !slices.Equal(anomalyIDs(a), []string{"stream.error-event"}) {
		t.Errorf("error %q anomalies %q", a.Message.Error, anomalyIDs(a))
	}
}

// TestOllamaErrorAndToolCalls: an error line ends the stream with its
// error; tool calls arrive whole and are appended, arguments kept as the
// JSON object they are.
func TestOllamaErrorAndToolCalls(t *testing.T) {
	t.Parallel()
	body := `{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"id":"c1","function":{"index":0,"name":"f","arguments":{"city":"Paris"}}}]},"done":false}` + "\n" +
		`{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"id":"c2","function":{"index":1,"name":"g","arguments":{}}}]},"done":false}` + "\n" +
		`{"error":"an error was encountered while running the model"}` + "\n"
	a, _ := assembleBody(t, framing.NDJSON, "/api/chat", body)
	ch := a.Message.Choices[0]
	want := []ToolCall{{Index: 0, ID: "c1", Name: "f", Arguments: `{"city":"Paris"}`, Born: bornAt(0, 0)}, {Index: 1, ID: "c2", Name: "g", Arguments: `{}`, Born: bornAt(1, 1)}}
	if !slices.Equal(ch.ToolCalls, want) {
		t.Errorf("tool calls %+v, want %+v", ch.ToolCalls, want)
	}
	if a.Message.Error != "an error was encountered while running the model" || !slices.Equal(anomalyIDs(a), []string{"stream.error-event"}) {
		t.Errorf("error %q anomalies %q", a.Message.Error, anomalyIDs(a))
	}
	// Cut before the done line: no terminal.
	a, _ = assembleBody(t, framing.NDJSON, "/api/chat", `{"model":"m","message":{"role":"assistant","content":"a"},"done":false}`+"\n")
	if !slices.Equal(anomalyIDs(a), []string{"stream.no-terminal"}) {
		t.Errorf("anomalies %q, want stream.no-terminal", anomalyIDs(a))
	}
}

// TestCohereErrorAndUnclosedCall: message-end with finish_reason ERROR is
// the in-band error, and a tool call without tool-call-end is reported.
func TestCohereErrorAndUnclosedCall(t *testing.T) {
	t.Parallel()
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	body := ev("message-start", `{"id":"x","type":"message-start","delta":{"message":{"role":"assistant"}}}`) +
		ev("tool-call-start", `{"type":"tool-call-start","index":0,"delta":{"message":{"tool_calls":{"id":"t","type":"function","function":{"name":"f","arguments":""}}}}}`) +
		ev("tool-call-delta", `{"type":"tool-call-delta","index":0,"delta":{"message":{"tool_calls":{"function":{"arguments":"{\"a\":"}}}}}`) +
		ev("message-end", `{"type":"message-end","delta":{"finish_reason":"ERROR","error":"internal error"}}`)
	a, _ := assembleBody(t, framing.SSE, "/v2/chat", body)
	if a.Message.Error != "ERROR: internal error" {
		t.Errorf("error %q", a.Message.Error)
	}
	if ids := anomalyIDs(a); !slices.Equal(ids, []string{"stream.error-event", "tool.unclosed"}) {
		t.Errorf("anomalies %q", ids)
	}
}

// TestGeminiPartialArgsAndEnums: Vertex streamed function arguments
// (partialArgs, willContinue) join into one call, and a finishReason sent
// as a number (enum-encoding=int) reads as its name.
func TestGeminiPartialArgsAndEnums(t *testing.T) {
	t.Parallel()
	data := func(s string) string { return "data: " + s + "\n\n" }
	body := data(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","partialArgs":[{"jsonPath":"$.city","stringValue":"San ","willContinue":true}],"willContinue":true},"thoughtSignature":"S1"}]}}]}`) +
		data(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.city","stringValue":"Jose"},{"jsonPath":"$.opts.units","stringValue":"c\u0007<"},{"jsonPath":"$.days","numberValue":3}]}}]}}]}`) +
		data(`{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":1}]}`)
	a, _ := assembleBody(t, framing.SSE, "", body)
	ch := a.Message.Choices[0]
	want := []ToolCall{{Index: 0, Name: "f", Arguments: `{"city":"San Jose","opts":{"units":"c\u0007<"},"days":3}`, Signature: "S1", Born: bornAt(0, 1)}}
	if !slices.Equal(ch.ToolCalls, want) || ch.Text != "ok" || ch.FinishReason != "STOP" || len(a.Anomalies) != 0 {
		t.Errorf("calls %+v text %q finish %q anomalies %+v", ch.ToolCalls, ch.Text, ch.FinishReason, a.Anomalies)
	}
}

// bornAt returns the Born of a part first added by event first and last by
// event last.
func bornAt(first, last int) Born {
	var b Born
	b.Add(first)
	b.Add(last)
	return b
}

// TestSpansCoverStartText: text a block brings when it starts (Anthropic's
// content_block_start, Cohere's content-start) points at that event, as
// the deltas' text points at theirs.
func TestSpansCoverStartText(t *testing.T) {
	t.Parallel()
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	for _, c := range []struct{ url, body string }{
		{"/v1/messages", ev("message_start", `{"type":"message_start","message":{"id":"m"}}`) +
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"Hel"}}`) +
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo"}}`) +
			ev("content_block_stop", `{"type":"content_block_stop","index":0}`) +
			ev("message_stop", `{"type":"message_stop"}`)},
		{"/v2/chat", ev("message-start", `{"type":"message-start","id":"x","delta":{"message":{"role":"assistant"}}}`) +
			ev("content-start", `{"type":"content-start","index":0,"delta":{"message":{"content":{"type":"text","text":"Hel"}}}}`) +
			ev("content-delta", `{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"lo"}}}}`) +
			ev("content-end", `{"type":"content-end","index":0}`) +
			ev("message-end", `{"type":"message-end","delta":{"finish_reason":"COMPLETE"}}`)},
	} {
		a, _ := assembleBody(t, framing.SSE, c.url, c.body)
		ch := a.Message.Choices[0]
		if ch.Text != "Hello" || EventAt(ch.Spans, 0) != 1 || EventAt(ch.Spans, 3) != 2 {
			t.Errorf("%s: text %q spans %+v, want Hel from event 1 and lo from event 2", c.url, ch.Text, ch.Spans)
		}
	}
}

// TestBodyUsage: a non-stream body's usage is read as its stream's is,
// cache tokens included.
func TestBodyUsage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		p    Protocol
		body string
		want Usage
	}{
		{Anthropic, `{"id":"m","type":"message","role":"assistant","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn",` +
			`"usage":{"input_tokens":5,"output_tokens":2,"cache_read_input_tokens":3,"cache_creation_input_tokens":4}}`,
			Usage{Input: 5, Output: 2, CacheRead: 3, CacheCreation: 4}},
		{BedrockConverse, `{"output":{"message":{"role":"assistant","content":[{"text":"hi"}]}},"stopReason":"end_turn",` +
			`"usage":{"inputTokens":5,"outputTokens":2,"totalTokens":7,"cacheReadInputTokens":3,"cacheWriteInputTokens":4}}`,
			Usage{Input: 5, Output: 2, Total: 7, CacheRead: 3, CacheCreation: 4}},
		{Cohere, `{"id":"x","finish_reason":"COMPLETE","message":{"role":"assistant","content":[{"type":"text","text":"hi"}]},` +
			`"usage":{"billed_units":{"input_tokens":1,"output_tokens":1},"tokens":{"input_tokens":5,"output_tokens":2}}}`,
			Usage{Input: 5, Output: 2}},
	} {
		a := AssembleBody(c.p, c.body)
		if a.Message.Usage == nil || *a.Message.Usage != c.want || a.Message.Text() != "hi" {
			t.Errorf("%s body: usage %+v text %q, want %+v and hi", c.p, a.Message.Usage, a.Message.Text(), c.want)
		}
	}
}
