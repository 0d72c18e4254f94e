package protocol

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/internal/streamtest"
	"github.com/seam-dev/seam/tape"
)

// assembleStreams are recorded streams of each protocol family
// (fixtures/README.md gives their provenance).
var assembleStreams = []struct {
	name  string
	p     Protocol
	files []string
}{
	{"chat", Chat, []string{streamtest.Realworld + "/openai-chat-long-text.sse", streamtest.Realworld + "/openai-chat-parallel-tool-calls.sse",
		streamtest.Realworld + "/openai-chat-n3-choices.sse", providers + "/mistral/mistral-stream-tool-call.sse"}},
	{"responses", Responses, []string{streamtest.Realworld + "/pydantic-ai-openai-responses-stream.1.sse",
		streamtest.Realworld + "/pydantic-ai-openai-responses-streaming-usage.sse", "../fixtures/round3/rubyopenai-responses-stream.1.sse"}},
	{"anthropic", Anthropic, []string{streamtest.Realworld + "/anthropic-sdk-tool-use-response.sse",
		streamtest.Realworld + "/anthropic-sdk-incomplete-partial-json-response.sse", "../fixtures/round3/llmanthropic-web-search-stream.1.sse"}},
	{"gemini", Gemini, []string{providers + "/gemini/gemini-fb-googleai-basic-reply-long.sse",
		providers + "/gemini/gemini-fb-googleai-thinking-function-call.sse", providers + "/gemini/gemini-langchaingo-json-array-stream.body.json"}},
	{"converse", BedrockConverse, []string{providers + "/bedrock/bedrock-converse-stream-claude3-tool-use.eventstream",
		providers + "/bedrock/bedrock-converse-stream-nova-guardrail-mask.eventstream"}},
	{"invoke", BedrockInvoke, []string{providers + "/bedrock/bedrock-invoke-stream-claude3-messages.eventstream",
		"../fixtures/round3/bedrock-invoke-stream-titan-text-express.eventstream", "../fixtures/round3/bedrock-invoke-stream-nova-constructed.eventstream"}},
	{"cohere", Cohere, []string{providers + "/cohere/cohere-v2-stream-text.sse", providers + "/cohere/cohere-v2-stream-two-tool-calls.sse"}},
	{"ollama", Ollama, []string{providers + "/ollama/ollama-langchaingo-chat-stream-long.ndjson",
		providers + "/ollama/ollama-openinference-chat-stream-thinking.ndjson"}},
}

// BenchmarkAssemble assembles each family's recorded streams, parsed once
// beforehand and their payload records decoded (as inspect finds them after
// the first reader): the cost of the assembly rules alone. MB/s counts the
// streams' bytes.
func BenchmarkAssemble(b *testing.B) {
	for _, s := range assembleStreams {
		b.Run(s.name, func(b *testing.B) {
			var sides []*Side
			size := 0
			for _, f := range s.files {
				body, err := os.ReadFile(filepath.Clean(f))
				if err != nil {
					b.Fatal(err)
				}
				size += len(body)
				kind, _ := framing.Choose("", body)
				se := Parse(chunksOf(tape.Upstream, body, 1024), kind, nil)
				if a := Assemble(s.p, se); len(a.Message.Choices) == 0 {
					b.Fatalf("%s: nothing assembled", f)
				}
				sides = append(sides, se)
			}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				for _, se := range sides {
					Assemble(s.p, se)
				}
			}
		})
	}
}
