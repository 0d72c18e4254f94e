package protocol

import (
	"os"
	"testing"

	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/internal/streamtest"
	"github.com/seam-dev/seam/sse"
)

// BenchmarkWatch follows a recorded Chat Completions stream read one event
// per read, as the recorder's terminal watch does on its read path.
func BenchmarkWatch(b *testing.B) {
	parts := sse.SplitEvents(readTestdata(b, "openai-chat-long-text.sse"))
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		w := NewWatch("text/event-stream", "/v1/chat/completions")
		for _, p := range parts {
			w.Feed(p)
		}
		w.Close()
		if !w.Terminal() {
			b.Fatal("no terminal")
		}
	}
}

// BenchmarkWatchProviders follows a recorded stream of each other protocol
// (and framing) read 64 bytes at a time, as BenchmarkWatch does for Chat
// Completions.
func BenchmarkWatchProviders(b *testing.B) {
	for _, c := range []struct{ name, file, url string }{
		{"anthropic", streamtest.Realworld + "/anthropic-sdk-tool-use-response.sse", "/v1/messages"},
		{"responses", streamtest.Realworld + "/pydantic-ai-openai-responses-stream.1.sse", "/v1/responses"},
		{"gemini", providers + "/gemini/gemini-fb-googleai-basic-reply-long.sse", "/v1beta/models/m:streamGenerateContent"},
		{"gemini-array", providers + "/gemini/gemini-langchaingo-json-array-stream.body.json", "/v1beta/models/m:streamGenerateContent"},
		{"cohere", providers + "/cohere/cohere-v2-stream-text.sse", "/v2/chat"},
		{"ollama", providers + "/ollama/ollama-langchaingo-chat-stream-long.ndjson", "/api/chat"},
		{"converse", providers + "/bedrock/bedrock-converse-stream-claude3-tool-use.eventstream", "/model/m/converse-stream"},
		{"invoke", providers + "/bedrock/bedrock-invoke-stream-claude3-messages.eventstream", "/model/m/invoke-with-response-stream"},
	} {
		b.Run(c.name, func(b *testing.B) {
			body, err := os.ReadFile(c.file)
			if err != nil {
				b.Fatal(err)
			}
			ct, _ := framing.Choose("", body)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				w := NewWatch(ct.ContentType(), c.url)
				for off := 0; off < len(body); off += 64 {
					w.Feed(body[off:min(off+64, len(body))])
				}
				w.Close()
				if !w.Terminal() {
					b.Fatal("no terminal")
				}
			}
		})
	}
}
