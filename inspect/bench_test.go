package inspect

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/seam-dev/seam/tape"
)

// BenchmarkInspect inspects a capture of realistic exchanges: the real
// Codex token stream as a Chat Completions stream on both sides (the
// incident variant on the client side), repeated.
func BenchmarkInspect(b *testing.B) {
	up := codexDeltas(b)
	client, _ := incidentDeltas(up)
	c := &tape.Capture{Name: "bench"}
	for i := 1; i <= 20; i++ {
		x := chatExchange(i, `{"model":"m","stream":true,"messages":[{"role":"user","content":"weather note"}]}`, chatStream(tape.Upstream, up), chatStream(tape.Client, client))
		c.Exchanges = append(c.Exchanges, x)
	}
	benchCapture(b, c)
}

// BenchmarkInspectMixed inspects a capture mixing the real recorded streams
// of fixtures/realworld (Chat Completions, Responses and Anthropic
// Messages, see fixtures/README.md) with the Codex incident stream, each recorded on both sides
// and cut into 1 KiB reads as a proxy sees them, repeated.
func BenchmarkInspectMixed(b *testing.B) {
	streams := []struct{ file, url string }{
		{"openai-chat-long-text.sse", "/v1/chat/completions"},
		{"openai-chat-parallel-tool-calls.sse", "/v1/chat/completions"},
		{"openai-chat-n3-choices.sse", "/v1/chat/completions"},
		{"pydantic-ai-openai-responses-streaming-usage.sse", "/v1/responses"},
		{"pydantic-ai-openai-responses-stream.2.sse", "/v1/responses"},
		{"anthropic-sdk-tool-use-response.sse", "/v1/messages"},
		{"anthropic-sdk-incomplete-partial-json-response.sse", "/v1/messages"},
	}
	up := codexDeltas(b)
	client, _ := incidentDeltas(up)
	c := &tape.Capture{Name: "bench-mixed"}
	h := tape.Headers{"content-type": {"text/event-stream"}}
	for rep := 0; rep < 10; rep++ {
		for _, s := range streams {
			c.Exchanges = append(c.Exchanges, passedThrough(len(c.Exchanges)+1, s.url, h, readTestdata(b, s.file)))
		}
		ex := len(c.Exchanges) + 1
		c.Exchanges = append(c.Exchanges, chatExchange(ex, `{"model":"m","stream":true,"messages":[{"role":"user","content":"weather note"}]}`, chatStream(tape.Upstream, up), chatStream(tape.Client, client)))
	}
	benchCapture(b, c)
}

// passedThrough returns exchange ex: a streaming request to url whose
// response body, under headers h, went through a pass-through proxy, the
// same bytes on both sides in 1 KiB reads 1 ms apart.
func passedThrough(ex int, url string, h tape.Headers, body []byte) *tape.Exchange {
	x := &tape.Exchange{Ex: ex, Request: &tape.Request{Ex: ex, Method: "POST", URL: url, Body: []byte(`{"model":"m","stream":true}`)}}
	for _, side := range []tape.Side{tape.Upstream, tape.Client} {
		sd := x.Side(side)
		sd.Response = &tape.Response{Ex: ex, Side: side, Status: 200, Headers: h}
		sd.Chunks = chunksOf(side, body, 1024)
		sd.End = &tape.End{Ex: ex, Side: side, T: int64(len(sd.Chunks)+1) * 1e6, Outcome: tape.Complete, Bytes: int64(len(body))}
	}
	return x
}

func benchCapture(b *testing.B, c *tape.Capture) {
	var size int64
	for _, x := range c.Exchanges {
		for _, s := range []*tape.SideData{&x.Upstream, &x.Client} {
			for _, ch := range s.Chunks {
				size += int64(len(ch.Data))
			}
		}
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		Inspect(c, Options{})
	}
}

// BenchmarkInspectFile reads and inspects a capture file (the Codex
// exchanges of BenchmarkInspect, encoded) both ways side by side: whole,
// with tape.Read and Inspect, and exchange by exchange, with
// tape.ExchangeReader and an Inspector, as seam inspect does. Throughput is
// per byte of capture file.
func BenchmarkInspectFile(b *testing.B) {
	up := codexDeltas(b)
	client, _ := incidentDeltas(up)
	file := tape.AppendHeader(nil, tape.Header{V: tape.Version, Engine: tape.Engine{Profile: "passthrough"}})
	for i := 1; i <= 20; i++ {
		x := chatExchange(i, `{"model":"m","stream":true,"messages":[{"role":"user","content":"weather note"}]}`, chatStream(tape.Upstream, up), chatStream(tape.Client, client))
		file = tape.AppendExchange(file, x)
	}
	b.Run("whole", func(b *testing.B) {
		b.SetBytes(int64(len(file)))
		b.ReportAllocs()
		for b.Loop() {
			c, err := tape.Read(bytes.NewReader(file), "bench")
			if err != nil {
				b.Fatal(err)
			}
			Inspect(c, Options{})
		}
	})
	b.Run("streamed", func(b *testing.B) {
		b.SetBytes(int64(len(file)))
		b.ReportAllocs()
		for b.Loop() {
			r := tape.NewExchangeReader(bytes.NewReader(file), "bench")
			h, err := r.Header()
			if err != nil {
				b.Fatal(err)
			}
			in := NewInspector("bench", *h, Options{})
			for {
				x, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				in.Exchange(x)
			}
		}
	})
}

// BenchmarkInspectDocument inspects non-stream exchanges: a Chat
// Completions response of about 64 KB as one JSON document, passed
// through on both sides in 1 KiB reads.
func BenchmarkInspectDocument(b *testing.B) {
	text := strings.Repeat("The weather note says rain by noon, then sun. ", 1400)
	body := []byte(`{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"` + text + `"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":14000,"total_tokens":14010}}`)
	h := tape.Headers{"content-type": {"application/json"}}
	c := &tape.Capture{Name: "bench-document"}
	for i := 1; i <= 20; i++ {
		c.Exchanges = append(c.Exchanges, passedThrough(i, "/v1/chat/completions", h, body))
	}
	benchCapture(b, c)
}
