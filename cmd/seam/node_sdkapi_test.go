package main

import (
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/seam-dev/seam/sse"
	"github.com/seam-dev/seam/tlsca"
	"github.com/tidwall/gjson"
)

// The local API the SDK tests run against: it answers each request with a
// real provider body, chosen by the model the request names.

// sdkBody is a recorded provider body the fake API serves to an SDK: the
// SDK names it as its model.
type sdkBody struct {
	// file is the body, under fixtures/.
	file string
	// ctype is the Content-Type the provider sent it with.
	ctype string
	// coding, when set, is the Content-Encoding it is served in (gzip or
	// br), compressed event by event with the compressor's last block sent
	// only once the client is gone (or after a while): as a server whose
	// client hangs up at the terminal event sees it.
	coding string
	// status is the HTTP status it came with (0: 200) and header one more
	// header line ("Name: value") the provider sent.
	status int
	header string
	// drop is a suffix of the recorded body left out, to serve it as a
	// server that ends its stream otherwise would.
	drop string
}

const (
	ctSSE         = "text/event-stream"
	ctEventStream = "application/vnd.amazon.eventstream"
	ctNDJSON      = "application/x-ndjson"
)

// sdkBodies are the real provider streams the SDKs read, by the model name
// the SDK asks for (fixtures/providers/MANIFEST.md says where each comes
// from).
var sdkBodies = map[string]sdkBody{
	"gemini-basic-long":        {"providers/gemini/gemini-fb-googleai-basic-reply-long.sse", ctSSE, "", 0, "", ""},
	"gemini-thinking-call":     {"providers/gemini/gemini-fb-googleai-thinking-function-call.sse", ctSSE, "", 0, "", ""},
	"gemini-parallel-calls":    {"providers/gemini/gemini-openinference-sse-parallel-function-calls.sse", ctSSE, "", 0, "", ""},
	"converse-claude3-tool":    {"providers/bedrock/bedrock-converse-stream-claude3-tool-use.eventstream", ctEventStream, "", 0, "", ""},
	"converse-nova-guardrail":  {"providers/bedrock/bedrock-converse-stream-nova-guardrail-mask.eventstream", ctEventStream, "", 0, "", ""},
	"converse-titan-guardrail": {"providers/bedrock/bedrock-converse-stream-titan-guardrail.eventstream", ctEventStream, "", 0, "", ""},
	"invoke-claude3-messages":  {"providers/bedrock/bedrock-invoke-stream-claude3-messages.eventstream", ctEventStream, "", 0, "", ""},
	"invoke-claude3-tool":      {"providers/bedrock/bedrock-invoke-stream-claude3-tool-use.eventstream", ctEventStream, "", 0, "", ""},
	"invoke-titan-blocked":     {"providers/bedrock/bedrock-invoke-stream-titan-guardrail-blocked.eventstream", ctEventStream, "", 0, "", ""},
	"invoke-titan-express":     {"round3/bedrock-invoke-stream-titan-text-express.eventstream", ctEventStream, "", 0, "", ""},
	"invoke-llama2":            {"round3/bedrock-invoke-stream-llama2-13b.eventstream", ctEventStream, "", 0, "", ""},
	"invoke-mistral-7b":        {"round3/bedrock-invoke-stream-mistral-7b.eventstream", ctEventStream, "", 0, "", ""},
	"invoke-cohere-command":    {"round3/bedrock-invoke-stream-cohere-command-text.eventstream", ctEventStream, "", 0, "", ""},
	"cohere-two-tool-calls":    {"providers/cohere/cohere-v2-stream-two-tool-calls.sse", ctSSE, "", 0, "", ""},
	"cohere-text":              {"providers/cohere/cohere-v2-stream-text.sse", ctSSE, "", 0, "", ""},
	"cohere-text-gzip":         {"providers/cohere/cohere-v2-stream-text.sse", ctSSE, "gzip", 0, "", ""},
	"ollama-chat":              {"providers/ollama/ollama-langchaingo-chat-stream.ndjson", ctNDJSON, "", 0, "", ""},
	"ollama-chat-thinking":     {"providers/ollama/ollama-openinference-chat-stream-thinking.ndjson", ctNDJSON, "", 0, "", ""},
	"ollama-chat-llama3":       {"providers/ollama/ollama-openllmetry-chat-stream-llama3.ndjson", ctNDJSON, "", 0, "", ""},
	"generate-ollama":          {"providers/ollama/ollama-langchaingo-generate-stream.ndjson", ctNDJSON, "", 0, "", ""},
	"mistral-tool-call":        {"providers/mistral/mistral-stream-tool-call.sse", ctSSE, "", 0, "", ""},
	"mistral-text":             {"providers/mistral/mistral-stream-text.sse", ctSSE, "", 0, "", ""},
	"mistral-text-br":          {"providers/mistral/mistral-stream-text.sse", ctSSE, "br", 0, "", ""},
	// Ended by its finish reason and EOF, without [DONE] (as Perplexity
	// and some OpenAI-compatible servers end them).
	"mistral-text-no-done": {file: "providers/mistral/mistral-stream-text.sse", ctype: ctSSE, drop: "data: [DONE]\n\n"},

	// Streams that end otherwise: blocked, recited, an error.
	"gemini-code-execution":   {file: "providers/gemini/gemini-fb-googleai-code-execution.sse", ctype: ctSSE},
	"gemini-recitation":       {file: "providers/gemini/gemini-fb-googleai-recitation-no-content.sse", ctype: ctSSE},
	"gemini-safety":           {file: "providers/gemini/gemini-fb-vertexai-finish-reason-safety.sse", ctype: ctSSE},
	"gemini-prompt-blocked":   {file: "providers/gemini/gemini-fb-googleai-prompt-blocked-safety.sse", ctype: ctSSE},
	"gemini-error-mid-stream": {file: "providers/gemini/gemini-fb-vertexai-error-mid-stream.sse", ctype: ctSSE},
	"bedrock-400-model-id": {file: "round3/bedrock-error-400-invalid-model-id.body.json", ctype: "application/json", status: 400,
		header: "X-Amzn-Errortype: ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"},
	"bedrock-403-token": {file: "round3/bedrock-error-403-invalid-token-mistral.body.json", ctype: "application/json", status: 403,
		header: "X-Amzn-Errortype: UnrecognizedClientException:http://internal.amazon.com/coral/com.amazon.coral.service/"},
}

// pathModel finds the model a Bedrock (/model/{id}/…) or Gemini
// (/models/{id}:…) request names in its path.
var pathModel = regexp.MustCompile(`/models?/([^/:]+)[/:]`)

// bodyModel returns the model a request names: in its path, else in its
// JSON body.
func bodyModel(url string, body []byte) string {
	if m := pathModel.FindStringSubmatch(url); m != nil {
		return m[1]
	}
	return gjson.GetBytes(body, "model").String()
}

// read returns the body as served, uncompressed.
func (b sdkBody) read(t testing.TB) []byte {
	body := readFixture(t, b.file)
	if b.drop != "" {
		if !bytes.HasSuffix(body, []byte(b.drop)) {
			t.Fatalf("%s does not end with %q", b.file, b.drop)
		}
		body = body[:len(body)-len(b.drop)]
	}
	return body
}

// readFixture reads a file under fixtures/.
func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixturesDir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// frames cuts a body where its framing ends events (SSE events, NDJSON
// lines, event-stream messages), as a provider flushes them.
func frames(ctype string, b []byte) [][]byte {
	switch ctype {
	case ctSSE:
		return sse.SplitEvents(b)
	case ctNDJSON:
		return bytes.SplitAfter(b, []byte("\n"))
	case ctEventStream:
		var out [][]byte
		for len(b) >= 4 {
			n := int(binary.BigEndian.Uint32(b))
			if n < 16 || n > len(b) {
				break
			}
			out, b = append(out, b[:n]), b[n:]
		}
		return append(out, b)
	}
	return [][]byte{b}
}

// sdkAPI answers every request with the recorded body its model names,
// flushed event by event.
func sdkAPI(t *testing.T) http.Handler {
	bodies := map[string][]byte{}
	for model, b := range sdkBodies {
		bodies[model] = b.read(t)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := io.ReadAll(r.Body)
		model := bodyModel(r.URL.String(), req)
		b, ok := sdkBodies[model]
		if !ok {
			http.Error(w, fmt.Sprintf(`{"error":{"message":"no recorded body for model %q"}}`, model), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", b.ctype)
		if b.coding != "" {
			w.Header().Set("Content-Encoding", b.coding)
		}
		if name, value, ok := strings.Cut(b.header, ": "); ok {
			w.Header().Set(name, value)
		}
		if b.status != 0 {
			w.WriteHeader(b.status)
		}
		flush := func() { w.(http.Flusher).Flush() }
		writeFrames(w, b.coding, frames(b.ctype, bodies[model]), flush, func() {
			select {
			case <-r.Context().Done():
			case <-time.After(500 * time.Millisecond):
			}
		})
	})
}

// compressor is a streaming compressor that can flush what it has.
type compressor interface {
	io.WriteCloser
	Flush() error
}

// writeFrames writes the frames to w, compressed in coding when it is set,
// calling flush after each; then, for a compressed body, it calls wait
// before the compressor's last block.
func writeFrames(w io.Writer, coding string, frames [][]byte, flush, wait func()) {
	var c compressor
	switch coding {
	case "":
		for _, f := range frames {
			w.Write(f)
			flush()
		}
		return
	case "br":
		c = brotli.NewWriterLevel(w, brotli.DefaultCompression)
	default:
		c = gzip.NewWriter(w)
	}
	for _, f := range frames {
		c.Write(f)
		c.Flush()
		flush()
	}
	wait()
	c.Close()
}

// servedBodies returns the bytes the API sends for b: whole, and (for a
// compressed body) cut before the compressor's last block, where a client
// that hung up at the terminal event leaves it.
func servedBodies(t testing.TB, b sdkBody) (whole, cut []byte) {
	body := b.read(t)
	if b.coding == "" {
		return body, body
	}
	var buf bytes.Buffer
	writeFrames(&buf, b.coding, frames(b.ctype, body), func() {}, func() { cut = bytes.Clone(buf.Bytes()) })
	return buf.Bytes(), cut
}

// newSNIAPI serves h over TLS (HTTP/2 offered) with a certificate for
// whatever name the client asks for, signed by a CA of its own, whose
// certificate file it returns: the SDKs reach it directly as 127.0.0.1,
// and seam --forward by each provider's host name.
func newSNIAPI(t *testing.T, h http.Handler) (*httptest.Server, string) {
	t.Helper()
	ca, _, err := tlsca.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ip, err := ca.Leaf("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	// A client of 127.0.0.1 sends no server name: it gets Certificates[0].
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{*ip}, GetCertificate: ca.GetCertificate("127.0.0.1")}
	srv.EnableHTTP2 = true
	// cohere-ai's fetch drops a connection or two mid-handshake: say so in
	// the test's log, not on stderr.
	srv.Config.ErrorLog = log.New(testLog{t}, "fake API: ", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, ca.CertPath()
}

// testLog writes to the test's log.
type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Log(strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}
