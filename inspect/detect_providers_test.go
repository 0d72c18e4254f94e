package inspect

import (
	"bytes"
	"compress/gzip"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/seam-dev/seam/coding"
)

// Builders of the other providers' streams.

// converse encodes ConverseStream events, each given as an event type and
// its JSON payload, as event-stream messages.
func converse(events ...[2]string) string {
	var b bytes.Buffer
	enc := eventstream.NewEncoder()
	for _, e := range events {
		msg := eventstream.Message{Payload: []byte(e[1])}
		msg.Headers.Set(":message-type", eventstream.StringValue("event"))
		msg.Headers.Set(":event-type", eventstream.StringValue(e[0]))
		msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
		if err := enc.Encode(&b, msg); err != nil {
			panic(err)
		}
	}
	return b.String()
}

// converseText is a clean ConverseStream answering text, then closing
// the message with stopReason stop and the metadata event.
func converseText(stop string, withMetadata bool) string {
	ev := [][2]string{
		{"messageStart", `{"role":"assistant"}`},
		{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Hello"}}`},
		{"contentBlockStop", `{"contentBlockIndex":0}`},
		{"messageStop", `{"stopReason":"` + stop + `"}`},
	}
	if withMetadata {
		ev = append(ev, [2]string{"metadata", `{"usage":{"inputTokens":3,"outputTokens":1,"totalTokens":4},"metrics":{"latencyMs":10}}`})
	}
	return converse(ev...)
}

// converseTool is a ConverseStream with one toolUse block, closed or not.
func converseTool(closed bool) string {
	ev := [][2]string{
		{"messageStart", `{"role":"assistant"}`},
		{"contentBlockStart", `{"contentBlockIndex":0,"start":{"toolUse":{"toolUseId":"t1","name":"read"}}}`},
		{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\"path\":\"a\"}"}}}`},
	}
	if closed {
		ev = append(ev, [2]string{"contentBlockStop", `{"contentBlockIndex":0}`})
	}
	ev = append(ev, [2]string{"messageStop", `{"stopReason":"tool_use"}`}, [2]string{"metadata", `{"usage":{"inputTokens":3,"outputTokens":1}}`})
	return converse(ev...)
}

// cohereEv is one Cohere v2 SSE event.
func cohereEv(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }

// cohereText is a Cohere v2 text stream; start says whether it opens with
// message-start.
func cohereText(start bool) string {
	var b strings.Builder
	if start {
		b.WriteString(cohereEv("message-start", `{"id":"c1","type":"message-start","delta":{"message":{"role":"assistant"}}}`))
	}
	b.WriteString(cohereEv("content-start", `{"type":"content-start","index":0,"delta":{"message":{"content":{"type":"text","text":""}}}}`))
	b.WriteString(cohereEv("content-delta", `{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"Hi"}}}}`))
	b.WriteString(cohereEv("content-end", `{"type":"content-end","index":0}`))
	b.WriteString(cohereEv("message-end", `{"type":"message-end","delta":{"finish_reason":"COMPLETE","usage":{"tokens":{"input_tokens":1,"output_tokens":1}}}}`))
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// gemini is a Gemini SSE stream of the given chunks.
func gemini(chunks ...string) string {
	var b strings.Builder
	for _, c := range chunks {
		b.WriteString("data: " + c + "\r\n\r\n")
	}
	return b.String()
}

// gemText is one Gemini chunk with text and, when finish is set, a
// finishReason.
func gemText(text, finish string) string {
	c := `{"candidates":[{"content":{"parts":[{"text":"` + text + `"}],"role":"model"},"index":0`
	if finish != "" {
		c += `,"finishReason":"` + finish + `"`
	}
	return c + `}],"modelVersion":"gemini-2.5-flash"}`
}

// ollama is an Ollama /api/chat NDJSON stream.
func ollama(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

const (
	ollamaChunk = `{"model":"m","created_at":"t","message":{"role":"assistant","content":"Hi"},"done":false}`
	ollamaDone  = `{"model":"m","created_at":"t","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"prompt_eval_count":3,"eval_count":1}`
)

func providerDetectorCases() []struct {
	id         string
	fire, calm exInput
} {
	es := "application/vnd.amazon.eventstream"
	nd := "application/x-ndjson"
	bedrockURL := "/model/m/converse-stream"
	cleanConverse := converseText("end_turn", true)
	corrupt := []byte(cleanConverse)
	corrupt[len(corrupt)-10] ^= 1
	type C = struct {
		id         string
		fire, calm exInput
	}
	return []C{
		{"framing.mismatch",
			exInput{url: bedrockURL, client: cleanConverse},
			exInput{url: bedrockURL, ct: es, client: cleanConverse}},
		{"framing.corrupt",
			exInput{url: bedrockURL, ct: es, client: string(corrupt)},
			exInput{url: bedrockURL, ct: es, client: cleanConverse}},
		{"framing.cut",
			exInput{url: bedrockURL, ct: es, client: cleanConverse[:len(cleanConverse)-5]},
			exInput{url: bedrockURL, ct: es, client: cleanConverse}},
		{"protocol.unknown",
			exInput{url: "/v1/stream", client: "event: tick\ndata: 1\n\nevent: tick\ndata: 2\n\n"},
			exInput{client: chatText("Hello")}},
		{"stream.after-end",
			exInput{url: "/v1beta/models/g:streamGenerateContent?alt=sse", client: gemini(gemText("a", "STOP"), gemText("b", ""))},
			exInput{url: "/v1beta/models/g:streamGenerateContent?alt=sse", client: gemini(gemText("a", ""), gemText("b", "STOP"))}},
		{"stream.blocked",
			exInput{url: bedrockURL, ct: es, client: converseText("guardrail_intervened", true)},
			exInput{url: bedrockURL, ct: es, client: cleanConverse}},
		{"finish.abnormal",
			exInput{client: gemini(gemText("a", "MALFORMED_FUNCTION_CALL"))},
			exInput{client: gemini(gemText("a", "STOP"))}},
		{"tool.unclosed",
			exInput{url: bedrockURL, ct: es, client: converseTool(false)},
			exInput{url: bedrockURL, ct: es, client: converseTool(true)}},
		{"bedrock.order",
			exInput{url: bedrockURL, ct: es, client: converse([2]string{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"a"}}`}, [2]string{"messageStop", `{"stopReason":"end_turn"}`}, [2]string{"metadata", `{}`})},
			exInput{url: bedrockURL, ct: es, client: cleanConverse}},
		{"bedrock.no-metadata",
			exInput{url: bedrockURL, ct: es, client: converseText("end_turn", false)},
			exInput{url: bedrockURL, ct: es, client: cleanConverse}},
		{"cohere.order",
			exInput{url: "/v2/chat", client: cohereText(false)},
			exInput{url: "/v2/chat", client: cohereText(true)}},
		{"encoding.cut",
			exInput{ce: "gzip", client: gzipped(chatText("Hello"))[:40]},
			exInput{ce: "gzip", client: gzipped(chatText("Hello"))}},
		{"encoding.cut-after-end",
			exInput{ce: "gzip", client: gzipFlushed(chatText("Hello"))},
			exInput{ce: "gzip", client: gzipped(chatText("Hello"))[:40]}},
		{"encoding.corrupt",
			exInput{ce: "gzip", client: gzipped(chatText("Hello")) + "not a gzip member at all"},
			exInput{ce: "gzip", client: gzipped(chatText("Hello"))}},
		{"encoding.capped",
			exInput{ce: "gzip", client: gzipped(chatText("Hello") + "data: \"" + strings.Repeat("a", coding.MaxBody) + "\"\n\n")},
			exInput{ce: "gzip", client: gzipped(chatText("Hello") + "data: \"" + strings.Repeat("a", 1<<20) + "\"\n\n")}},
		{"encoding.unsupported",
			exInput{ce: "compress", client: chatText("Hello")},
			exInput{ce: "identity", client: chatText("Hello")}},
		// Ollama: an error line is the in-band error; done ends the stream.
		{"stream.error-event",
			exInput{url: "/api/chat", ct: nd, client: ollama(ollamaChunk, `{"error":"model runner crashed"}`)},
			exInput{url: "/api/chat", ct: nd, client: ollama(ollamaChunk, ollamaDone)}},
	}
}

// gzipFlushed returns s gzip-compressed and flushed, as a streaming
// server sends it, without the last block and trailer Close writes.
func gzipFlushed(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Flush()
	return b.String()
}

// gzipped returns s gzip-compressed.
func gzipped(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.String()
}
