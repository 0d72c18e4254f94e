package convert

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/seam-dev/seam/clients"
	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
)

// providerFile is what importing and inspecting one recorded provider file
// gives, per exchange: the protocol, the framing, the findings at warn or
// above (sorted), and the raw body the exchange must assemble like.
type providerFile struct {
	file    string
	proto   []protocol.Protocol
	framing []framing.Kind
	serious [][]string
	same    []string // per exchange, a raw body file assembling the same, or ""
}

func providerFiles() []providerFile {
	sse, nd, es, arr, none := framing.SSE, framing.NDJSON, framing.EventStream, framing.JSONArray, framing.Unknown
	one := func(file string, p protocol.Protocol, k framing.Kind, same string, serious ...string) providerFile {
		return providerFile{file: file, proto: []protocol.Protocol{p}, framing: []framing.Kind{k}, serious: [][]string{serious}, same: []string{same}}
	}
	return []providerFile{
		// Gemini / Vertex.
		one("gemini/gemini-fb-googleai-basic-reply-long.sse", protocol.Gemini, sse, ""),
		one("gemini/gemini-fb-googleai-code-execution.sse", protocol.Gemini, sse, ""),
		one("gemini/gemini-fb-googleai-thinking-function-call.sse", protocol.Gemini, sse, ""),
		one("gemini/gemini-fb-googleai-recitation-no-content.sse", protocol.Gemini, sse, "", "stream.blocked"),
		one("gemini/gemini-fb-googleai-prompt-blocked-safety.sse", protocol.Gemini, sse, "", "sse.unterminated-event", "stream.blocked"),
		one("gemini/gemini-fb-vertexai-finish-reason-safety.sse", protocol.Gemini, sse, "", "stream.blocked"),
		one("gemini/gemini-fb-vertexai-function-call-short.sse", protocol.Gemini, sse, ""),
		one("gemini/gemini-fb-vertexai-error-mid-stream.sse", protocol.Gemini, sse, "", "stream.after-end", "stream.error-event"),
		one("gemini/gemini-openinference-sse-parallel-function-calls.sse", protocol.Gemini, sse, ""),
		one("gemini/gemini-langchaingo-json-array-stream.body.json", protocol.Gemini, arr, ""),
		one("gemini/gemini-langchaingo-json-array-stream.httprr", protocol.Gemini, arr, "gemini/gemini-langchaingo-json-array-stream.body.json"),
		{file: "gemini/gemini-jsgenai-vertex-stream-function-call-partial-args.recording.json",
			proto: []protocol.Protocol{protocol.Gemini, protocol.Gemini}, framing: []framing.Kind{sse, sse}, serious: [][]string{nil, nil}, same: []string{"", ""}},
		// Bedrock.
		one("bedrock/bedrock-converse-stream-claude3-tool-use.eventstream", protocol.BedrockConverse, es, ""),
		one("bedrock/bedrock-converse-stream-nova-guardrail-mask.eventstream", protocol.BedrockConverse, es, "", "stream.blocked"),
		one("bedrock/bedrock-converse-stream-titan-guardrail.eventstream", protocol.BedrockConverse, es, "", "stream.blocked"),
		one("bedrock/bedrock-invoke-stream-claude3-messages.eventstream", protocol.BedrockInvoke, es, ""),
		one("bedrock/bedrock-invoke-stream-claude3-tool-use.eventstream", protocol.BedrockInvoke, es, ""),
		one("bedrock/bedrock-invoke-stream-claude3-tool-use.nock.json", protocol.BedrockInvoke, es, "bedrock/bedrock-invoke-stream-claude3-tool-use.eventstream"),
		one("bedrock/bedrock-invoke-stream-titan-guardrail-blocked.eventstream", protocol.BedrockInvoke, es, "", "stream.blocked"),
		// Cohere, Mistral, OpenAI-compatible gateways.
		one("cohere/cohere-v2-stream-text.sse", protocol.Cohere, sse, ""),
		one("cohere/cohere-v2-stream-two-tool-calls.sse", protocol.Cohere, sse, ""),
		one("mistral/mistral-stream-text.sse", protocol.Chat, sse, ""),
		one("mistral/mistral-stream-tool-call.sse", protocol.Chat, sse, ""),
		one("openai-compatible/openrouter-langchaingo-stream-processing-comment.sse", protocol.Chat, sse, ""),
		{file: "openai-compatible/openrouter-langchaingo-stream-processing-comment.httprr",
			proto: []protocol.Protocol{protocol.Chat, protocol.Chat}, framing: []framing.Kind{sse, none},
			serious: [][]string{nil, {"http.status"}}, same: []string{"openai-compatible/openrouter-langchaingo-stream-processing-comment.sse", ""}},
		one("openai-compatible/openrouter-langchaingo-429-after-stream.json", protocol.Unknown, none, "", "stream.error-event"),
		one("openai-compatible/together-stream-text.sse", protocol.Chat, sse, ""),
		// Ollama: the NDJSON bodies, the same bodies still in chunked
		// transfer framing and in their httprr traces, and a non-stream body.
		one("ollama/ollama-langchaingo-chat-stream.ndjson", protocol.Ollama, nd, ""),
		one("ollama/ollama-langchaingo-chat-stream.chunked.body", protocol.Ollama, nd, "ollama/ollama-langchaingo-chat-stream.ndjson"),
		one("ollama/ollama-langchaingo-chat-stream.httprr", protocol.Ollama, nd, "ollama/ollama-langchaingo-chat-stream.ndjson"),
		one("ollama/ollama-langchaingo-generate-stream.ndjson", protocol.Ollama, nd, ""),
		one("ollama/ollama-langchaingo-generate-stream.chunked.body", protocol.Ollama, nd, "ollama/ollama-langchaingo-generate-stream.ndjson"),
		one("ollama/ollama-langchaingo-generate-stream.httprr", protocol.Ollama, nd, "ollama/ollama-langchaingo-generate-stream.ndjson"),
		one("ollama/ollama-langchaingo-chat-stream-long.ndjson", protocol.Ollama, nd, ""),
		one("ollama/ollama-langchaingo-chat-stream-long.chunked.body", protocol.Ollama, nd, "ollama/ollama-langchaingo-chat-stream-long.ndjson"),
		one("ollama/ollama-langchaingo-chat-stream-long.httprr", protocol.Ollama, nd, "ollama/ollama-langchaingo-chat-stream-long.ndjson"),
		one("ollama/ollama-openinference-chat-stream-thinking.ndjson", protocol.Ollama, nd, ""),
		one("ollama/ollama-openllmetry-chat-stream-llama3.ndjson", protocol.Ollama, nd, ""),
		one("ollama/ollama-openllmetry-generate-stream-llama3.ndjson", protocol.Ollama, nd, ""),
		one("ollama/ollama-openinference-chat-tool-call-nonstream.json", protocol.Ollama, none, ""),
		// The VCR.py cassettes holding those bodies (the Bedrock ones as
		// !!binary) assemble as the bodies do.
		one("bedrock/bedrock-converse-stream-claude3-tool-use.yaml", protocol.BedrockConverse, es, "bedrock/bedrock-converse-stream-claude3-tool-use.eventstream"),
		one("bedrock/bedrock-converse-stream-nova-guardrail-mask.yaml", protocol.BedrockConverse, es, "bedrock/bedrock-converse-stream-nova-guardrail-mask.eventstream", "stream.blocked"),
		one("bedrock/bedrock-converse-stream-titan-guardrail.yaml", protocol.BedrockConverse, es, "bedrock/bedrock-converse-stream-titan-guardrail.eventstream", "stream.blocked"),
		one("bedrock/bedrock-invoke-stream-claude3-messages.yaml", protocol.BedrockInvoke, es, "bedrock/bedrock-invoke-stream-claude3-messages.eventstream"),
		one("bedrock/bedrock-invoke-stream-titan-guardrail-blocked.yaml", protocol.BedrockInvoke, es, "bedrock/bedrock-invoke-stream-titan-guardrail-blocked.eventstream", "stream.blocked"),
		one("cohere/cohere-v2-stream-text.yaml", protocol.Cohere, sse, "cohere/cohere-v2-stream-text.sse"),
		one("cohere/cohere-v2-stream-two-tool-calls.yaml", protocol.Cohere, sse, "cohere/cohere-v2-stream-two-tool-calls.sse"),
		one("gemini/gemini-openinference-sse-parallel-function-calls.yaml", protocol.Gemini, sse, "gemini/gemini-openinference-sse-parallel-function-calls.sse"),
		one("mistral/mistral-stream-text.yaml", protocol.Chat, sse, "mistral/mistral-stream-text.sse"),
		one("mistral/mistral-stream-tool-call.yaml", protocol.Chat, sse, "mistral/mistral-stream-tool-call.sse"),
		one("ollama/ollama-openinference-chat-stream-thinking.yaml", protocol.Ollama, nd, "ollama/ollama-openinference-chat-stream-thinking.ndjson"),
		one("ollama/ollama-openinference-chat-tool-call-nonstream.yaml", protocol.Ollama, none, "ollama/ollama-openinference-chat-tool-call-nonstream.json"),
		one("ollama/ollama-openllmetry-chat-stream-llama3.yaml", protocol.Ollama, nd, "ollama/ollama-openllmetry-chat-stream-llama3.ndjson"),
		one("ollama/ollama-openllmetry-generate-stream-llama3.yaml", protocol.Ollama, nd, "ollama/ollama-openllmetry-generate-stream-llama3.ndjson"),
		one("openai-compatible/together-stream-text.yaml", protocol.Chat, sse, "openai-compatible/together-stream-text.sse"),
	}
}

func importFile(t *testing.T, name string) (*tape.Capture, *inspect.Report) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "fixtures", "providers", name))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Import(bytes.NewReader(b), name)
	if err != nil {
		t.Fatalf("import %s: %v", name, err)
	}
	return c, inspect.Inspect(c, inspect.Options{})
}

// TestImportProviderFiles imports every recorded provider file as it is
// stored (raw bodies of each framing, bodies still in chunked transfer
// framing, httprr traces, a nock recording, a js-genai recording, VCR.py
// cassettes) and
// checks the protocol, the framing, the findings at warn or above (none on
// the clean streams), and that a container assembles exactly as the body
// extracted from it.
func TestImportProviderFiles(t *testing.T) {
	t.Parallel()
	for _, pf := range providerFiles() {
		t.Run(pf.file, func(t *testing.T) {
			t.Parallel()
			c, r := importFile(t, pf.file)
			if len(r.Exchanges) != len(pf.proto) {
				t.Fatalf("%d exchanges, want %d", len(r.Exchanges), len(pf.proto))
			}
			for i, x := range r.Exchanges {
				s := x.Sides[0]
				if x.Protocol != pf.proto[i] || s.Framing != pf.framing[i] {
					t.Errorf("exchange %d: %s in %s, want %s in %s", x.Ex, x.Protocol, s.Framing, pf.proto[i], pf.framing[i])
				}
				// OpenAI's and Anthropic's clients are not emulated on
				// the other families: their SDK's answer is the spec one.
				if p := pf.proto[i]; p != protocol.Chat && p != protocol.Unknown && (len(x.Clients) != 1 || x.Clients[0].Client != clients.Spec) {
					t.Errorf("exchange %d: %d client emulations on %s", x.Ex, len(x.Clients), p)
				}
				var serious []string
				for _, f := range x.Findings {
					if f.Severity >= inspect.Warn {
						serious = append(serious, f.ID)
					}
				}
				slices.Sort(serious)
				if !slices.Equal(serious, pf.serious[i]) {
					t.Errorf("exchange %d: findings %q, want %q", x.Ex, serious, pf.serious[i])
				}
				// The Content-Type says the framing, as serve will send it;
				// a cassette that kept none has none.
				if want := pf.framing[i].ContentType(); want != "" {
					got := strings.Join(c.Exchanges[i].Upstream.Response.Headers["content-type"], "")
					if !strings.HasPrefix(got, want) && !(got == "" && strings.HasSuffix(pf.file, ".yaml")) {
						t.Errorf("exchange %d: Content-Type %q, want %q", x.Ex, got, want)
					}
				}
				if pf.same[i] == "" {
					continue
				}
				_, wr := importFile(t, pf.same[i])
				want := wr.Exchanges[0].Sides[0].Message
				got, _ := json.Marshal(s.Message)
				exp, _ := json.Marshal(want)
				if !bytes.Equal(got, exp) {
					t.Errorf("exchange %d assembles unlike %s:\n got %s\nwant %s", x.Ex, pf.same[i], got, exp)
				}
			}
		})
	}
}
