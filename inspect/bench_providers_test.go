package inspect

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/seam-dev/seam/sse"
	"github.com/seam-dev/seam/tape"
)

// providerStreams are the recorded streams of each protocol family, with
// the Content-Type and URL they are served with (fixtures/README.md).
var providerStreams = map[string]struct {
	ct, url string
	files   []string
}{
	"gemini": {"text/event-stream", "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", []string{
		"gemini/gemini-fb-googleai-basic-reply-long.sse", "gemini/gemini-fb-googleai-thinking-function-call.sse",
		"gemini/gemini-openinference-sse-parallel-function-calls.sse", "gemini/gemini-fb-googleai-code-execution.sse"}},
	"gemini-json-array": {"application/json", "/v1beta/models/gemini-2.0-flash:streamGenerateContent", []string{
		"gemini/gemini-langchaingo-json-array-stream.body.json"}},
	"bedrock-converse": {"application/vnd.amazon.eventstream", "/model/m/converse-stream", []string{
		"bedrock/bedrock-converse-stream-claude3-tool-use.eventstream", "bedrock/bedrock-converse-stream-nova-guardrail-mask.eventstream"}},
	"bedrock-invoke": {"application/vnd.amazon.eventstream", "/model/m/invoke-with-response-stream", []string{
		"bedrock/bedrock-invoke-stream-claude3-messages.eventstream", "bedrock/bedrock-invoke-stream-claude3-tool-use.eventstream"}},
	"cohere-v2": {"text/event-stream", "/v2/chat", []string{
		"cohere/cohere-v2-stream-text.sse", "cohere/cohere-v2-stream-two-tool-calls.sse"}},
	"ollama": {"application/x-ndjson", "/api/chat", []string{
		"ollama/ollama-langchaingo-chat-stream-long.ndjson", "ollama/ollama-openinference-chat-stream-thinking.ndjson"}},
	"mistral": {"text/event-stream", "/v1/chat/completions", []string{
		"mistral/mistral-stream-text.sse", "mistral/mistral-stream-tool-call.sse"}},
	"openai-compatible": {"text/event-stream", "/v1/chat/completions", []string{
		"openai-compatible/openrouter-langchaingo-stream-processing-comment.sse", "openai-compatible/together-stream-text.sse"}},
}

// providerCapture repeats the family's streams, each recorded on both sides
// (a pass-through proxy) and cut into 1 KiB reads, until the capture holds
// about 2 MB. encode, if set, then compresses each body as sent with the
// Content-Encoding ce (the same streams, fewer bytes).
func providerCapture(b *testing.B, family string, ce string, encode func([]byte) []byte) *tape.Capture {
	b.Helper()
	fam := providerStreams[family]
	c := &tape.Capture{Name: "bench-" + family}
	size := 0
	for size < 2<<20 {
		for _, f := range fam.files {
			body, err := os.ReadFile(filepath.Join("..", "fixtures", "providers", f))
			if err != nil {
				b.Fatal(err)
			}
			size += 2 * len(body)
			h := tape.Headers{"content-type": {fam.ct}}
			if encode != nil {
				body = encode(body)
				h["content-encoding"] = []string{ce}
			}
			c.Exchanges = append(c.Exchanges, passedThrough(len(c.Exchanges)+1, fam.url, h, body))
		}
	}
	return c
}

// BenchmarkInspectProviders inspects each protocol family's recorded
// streams: MB/s of capture bytes (both sides).
func BenchmarkInspectProviders(b *testing.B) {
	for _, family := range []string{"gemini", "gemini-json-array", "bedrock-converse", "bedrock-invoke", "cohere-v2", "ollama", "mistral", "openai-compatible"} {
		b.Run(family, func(b *testing.B) {
			c := providerCapture(b, family, "", nil)
			checkClean(b, c)
			benchCapture(b, c)
		})
	}
}

// BenchmarkInspectGzip inspects the same streams sent identity and gzip
// (flushed per event, as a streaming server sends them): the difference in
// ns/op is the cost of decoding a copy. MB/s counts the decoded bytes in
// both, so the figures compare directly.
func BenchmarkInspectGzip(b *testing.B) {
	gz := func(body []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		for _, e := range sse.SplitEvents(body) {
			w.Write(e)
			w.Flush()
		}
		w.Close()
		return buf.Bytes()
	}
	for _, family := range []string{"gemini", "mistral"} {
		plain := providerCapture(b, family, "", nil)
		var size int64
		for _, x := range plain.Exchanges {
			size += 2 * x.Upstream.End.Bytes
		}
		b.Run(family+"/identity", func(b *testing.B) { benchCapture(b, plain) })
		b.Run(family+"/gzip", func(b *testing.B) {
			c := providerCapture(b, family, "gzip", gz)
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				Inspect(c, Options{})
			}
		})
	}
}

// checkClean fails the benchmark when its capture does not assemble in a
// known protocol, so a figure always measures real assembly.
func checkClean(b *testing.B, c *tape.Capture) {
	b.Helper()
	r := Inspect(&tape.Capture{Name: c.Name, Exchanges: c.Exchanges[:1]}, Options{})
	if p := r.Exchanges[0].Protocol; p == "unknown" || p == "" {
		b.Fatalf("%s: protocol %q", c.Name, p)
	}
}
