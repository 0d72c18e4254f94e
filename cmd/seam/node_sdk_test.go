package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/sse"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/tlsca"
	"github.com/tidwall/gjson"
)

// sdkBody is a recorded provider body the fake API serves to an SDK: the
// SDK names it as its model.
type sdkBody struct {
	// file is the body, under fixtures/.
	file string
	// ctype is the Content-Type the provider sent it with.
	ctype string
}

// sdkScript is one SDK, the script in testdata/node that drives it and the
// bodies it reads, by model name.
type sdkScript struct {
	name, script string
	// host is the provider's API host, which the forward leg names.
	host   string
	models []string
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
	"gemini-basic-long":        {"providers/gemini/gemini-fb-googleai-basic-reply-long.sse", ctSSE},
	"gemini-thinking-call":     {"providers/gemini/gemini-fb-googleai-thinking-function-call.sse", ctSSE},
	"gemini-parallel-calls":    {"providers/gemini/gemini-openinference-sse-parallel-function-calls.sse", ctSSE},
	"converse-claude3-tool":    {"providers/bedrock/bedrock-converse-stream-claude3-tool-use.eventstream", ctEventStream},
	"converse-nova-guardrail":  {"providers/bedrock/bedrock-converse-stream-nova-guardrail-mask.eventstream", ctEventStream},
	"converse-titan-guardrail": {"providers/bedrock/bedrock-converse-stream-titan-guardrail.eventstream", ctEventStream},
	"cohere-two-tool-calls":    {"providers/cohere/cohere-v2-stream-two-tool-calls.sse", ctSSE},
	"cohere-text":              {"providers/cohere/cohere-v2-stream-text.sse", ctSSE},
	"ollama-chat":              {"providers/ollama/ollama-langchaingo-chat-stream.ndjson", ctNDJSON},
	"ollama-chat-thinking":     {"providers/ollama/ollama-openinference-chat-stream-thinking.ndjson", ctNDJSON},
	"ollama-chat-llama3":       {"providers/ollama/ollama-openllmetry-chat-stream-llama3.ndjson", ctNDJSON},
	"generate-ollama":          {"providers/ollama/ollama-langchaingo-generate-stream.ndjson", ctNDJSON},
	"mistral-tool-call":        {"providers/mistral/mistral-stream-tool-call.sse", ctSSE},
	"mistral-text":             {"providers/mistral/mistral-stream-text.sse", ctSSE},
}

var sdkScripts = []sdkScript{
	{"@google/genai", "genai.mjs", "generativelanguage.googleapis.com", []string{"gemini-basic-long", "gemini-thinking-call", "gemini-parallel-calls"}},
	{"@aws-sdk/client-bedrock-runtime", "bedrock.mjs", "bedrock-runtime.us-east-1.amazonaws.com", []string{"converse-claude3-tool", "converse-nova-guardrail", "converse-titan-guardrail"}},
	{"cohere-ai", "cohere.mjs", "api.cohere.com", []string{"cohere-two-tool-calls", "cohere-text"}},
	{"ollama", "ollama.mjs", "ollama.com", []string{"ollama-chat", "ollama-chat-thinking", "ollama-chat-llama3", "generate-ollama"}},
	{"@mistralai/mistralai", "mistral.mjs", "api.mistral.ai", []string{"mistral-tool-call", "mistral-text"}},
}

// sdkHost returns the host of the SDK that reads model's body.
func sdkHost(model string) string {
	for _, s := range sdkScripts {
		if slices.Contains(s.models, model) {
			return s.host
		}
	}
	return ""
}

// bodyModel returns the model a request names: in its path for Bedrock
// (/model/{id}/…) and Gemini (/models/{id}:…), else in its JSON body.
var pathModel = regexp.MustCompile(`/models?/([^/:]+)[/:]`)

func bodyModel(url string, body []byte) string {
	if m := pathModel.FindStringSubmatch(url); m != nil {
		return m[1]
	}
	return gjson.GetBytes(body, "model").String()
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
		bodies[model] = readFixture(t, b.file)
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
		for _, f := range frames(b.ctype, bodies[model]) {
			w.Write(f)
			w.(http.Flusher).Flush()
		}
	})
}

// sdkResult is what an SDK reported for one stream (testdata/node/sdk.mjs).
type sdkResult struct {
	Model     string    `json:"model"`
	Text      string    `json:"text"`
	Reasoning string    `json:"reasoning"`
	ToolCalls []sdkCall `json:"tool_calls"`
	Finish    string    `json:"finish"`
	Usage     *sdkUsage `json:"usage"`
	Error     string    `json:"error,omitempty"`
}

type sdkCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Args any    `json:"args"`
}

type sdkUsage struct {
	Input  int `json:"input"`
	Output int `json:"output"`
}

// nodeScripts copies the scripts of testdata/node into a directory beside
// a link to modules' node_modules, so node resolves the packages from them
// as ES modules (which NODE_PATH does not reach).
func nodeScripts(t *testing.T, modules string) string {
	t.Helper()
	dir := t.TempDir()
	files, err := filepath.Glob(filepath.Join("testdata", "node", "*js"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts in testdata/node: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(modules, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runSDK runs script over models with env added, and returns its results
// by model.
func runSDK(t *testing.T, dir, script string, models []string, env ...string) map[string]sdkResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, "node", filepath.Join(dir, script))
	c.Dir = dir
	c.Env = append(os.Environ(), append([]string{"MODELS=" + strings.Join(models, ","), "NO_PROXY=", "no_proxy=", "HTTPS_PROXY=", "HTTP_PROXY="}, env...)...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("node %s %v: %v\n%s", script, env, err, stderr.Bytes())
	}
	got := map[string]sdkResult{}
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var r sdkResult
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("node %s printed %q: %v\n%s", script, line, err, stderr.Bytes())
		}
		got[r.Model] = r
	}
	if len(got) != len(models) {
		t.Fatalf("node %s: %d results for %d models\n%s", script, len(got), len(models), stderr.Bytes())
	}
	return got
}

func sameResult(a, b sdkResult) bool { return a.String() == b.String() }

// String is the result as JSON, map keys sorted.
func (r sdkResult) String() string {
	b, _ := json.Marshal(r)
	return string(b)
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
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, ca.CertPath()
}

// TestSDKsThroughRecord runs the official SDKs of Gemini, Bedrock, Cohere,
// Ollama and Mistral on real recorded streams served by a local API:
// directly (over TLS, HTTP/2 where the SDK speaks it), through seam record
// and through seam record --forward (each SDK naming its provider's host,
// which seam resolves to the local API). Every path gives the SDK the same
// result, the captures hold the served bytes on both sides, seam's
// assembly of each capture is what the SDK reported, and no healthy
// stream gets an error-level finding.
func TestSDKsThroughRecord(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the node test")
	}
	modules := nodeModules(t)
	dir := nodeScripts(t, modules)
	h := sdkAPI(t)
	api, apiCA := newSNIAPI(t, h)
	addr := api.Listener.Addr().String()
	plain := httptest.NewServer(h)
	t.Cleanup(plain.Close)

	recOut := filepath.Join(t.TempDir(), "record.ndjson")
	rec, recAddr := startRecord(t, plain.URL, recOut)
	caDir := t.TempDir()
	fwdOut := filepath.Join(t.TempDir(), "forward.ndjson")
	flags := []string{"--ca-file", apiCA}
	for _, s := range sdkScripts {
		flags = append(flags, "--host", s.host, "--resolve", s.host+":443:"+addr)
	}
	fwd, proxy, _ := startForward(t, caDir, fwdOut, flags...)
	seamCA, err := os.ReadFile(filepath.Join(caDir, tlsca.CertFile))
	if err != nil {
		t.Fatal(err)
	}
	apiPEM, _ := os.ReadFile(apiCA)
	cas := filepath.Join(t.TempDir(), "cas.pem")
	os.WriteFile(cas, append(apiPEM, seamCA...), 0o644)
	trust := "NODE_EXTRA_CA_CERTS=" + cas

	results := map[string]sdkResult{}
	events := t.TempDir()
	for _, s := range sdkScripts {
		direct := runSDK(t, dir, s.script, s.models, "BASE_URL=https://"+addr, trust, "EVENTS_DIR="+events)
		legs := map[string]map[string]sdkResult{
			// The AWS SDK's default handler speaks h2c to an http:// endpoint;
			// its HTTP/1.1 handler here, h2c in TestBedrockSDKThroughRecordH2C.
			"record":  runSDK(t, dir, s.script, s.models, "BASE_URL=http://"+recAddr, "HANDLER=h1"),
			"forward": runSDK(t, dir, s.script, s.models, "BASE_URL=https://"+s.host, trust, "PROXY="+proxy.String()),
		}
		for _, m := range s.models {
			if direct[m].Error != "" {
				t.Errorf("%s %s direct: %s", s.name, m, direct[m].Error)
			}
			for leg, got := range legs {
				if !sameResult(got[m], direct[m]) {
					t.Errorf("%s %s through %s: %v\ndiffers from direct: %v", s.name, m, leg, got[m], direct[m])
				}
			}
			results[m] = direct[m]
		}
	}
	stopSeam(t, rec)
	stopSeam(t, fwd)
	checkSDKCapture(t, recOut, results)
	checkSDKCapture(t, fwdOut, results)
	checkConverseJSONL(t, events, results)
	t.Run("bedrock-h2c", func(t *testing.T) { bedrockThroughH2C(t, dir, plain.URL, results) })
}

// bedrockThroughH2C runs the AWS SDK with its default handler, which
// speaks HTTP/2 without TLS (h2c, prior knowledge) to an http:// endpoint,
// through seam record; its results must be those of the direct run.
func bedrockThroughH2C(t *testing.T, dir, upstream string, direct map[string]sdkResult) {
	s := sdkScripts[slices.IndexFunc(sdkScripts, func(s sdkScript) bool { return s.script == "bedrock.mjs" })]
	out := filepath.Join(t.TempDir(), "h2c.ndjson")
	rec, addr := startRecord(t, upstream, out)
	if err := probeH2C(addr, s.models[0]); err != nil {
		t.Skipf("seam record does not accept HTTP/2 without TLS yet (h2c with prior knowledge, issue 21 item 4), "+
			"which the AWS SDK's default NodeHttp2Handler speaks to an http:// endpoint: %v", err)
	}
	got := runSDK(t, dir, s.script, s.models, "BASE_URL=http://"+addr)
	want := map[string]sdkResult{}
	for _, m := range s.models {
		if !sameResult(got[m], direct[m]) {
			t.Errorf("%s through record over h2c: %v\ndiffers from direct: %v", m, got[m], direct[m])
		}
		want[m] = direct[m]
	}
	stopSeam(t, rec)
	checkSDKCapture(t, out, want)
}

// probeH2C streams model's body from seam at addr over h2c with prior
// knowledge, as the AWS SDK would, and says why it could not.
func probeH2C(addr, model string) error {
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	c := &http.Client{Transport: &http.Transport{Protocols: &p}, Timeout: 10 * time.Second}
	resp, err := c.Post("http://"+addr+"/model/"+model+"/converse-stream", "application/json", strings.NewReader(`{"messages":[]}`))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || resp.ProtoMajor != 2 {
		return fmt.Errorf("%s %s", resp.Proto, resp.Status)
	}
	return nil
}

// checkSDKCapture checks every exchange of the capture in file: byte for
// byte the served body upstream and the same bytes on the client side,
// and seam's assembly equal to what the SDK reported.
func checkSDKCapture(t *testing.T, file string, results map[string]sdkResult) {
	t.Helper()
	c, err := tape.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	runSeam(context.Background(), nil, &stdout, &stderr, "inspect", "--json", file)
	var doc inspectDoc
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("inspect --json %s: %v\n%s", file, err, stderr.Bytes())
	}
	seen := map[string]int{}
	for i, x := range c.Exchanges {
		model := bodyModel(x.Request.URL, x.Request.Body)
		b, ok := sdkBodies[model]
		if !ok {
			t.Errorf("%s exchange %d: %s %s names no recorded body", filepath.Base(file), x.Ex, x.Request.Method, x.Request.URL)
			continue
		}
		seen[model]++
		if host := sdkHost(model); x.Request.Host != "" && x.Request.Host != host {
			t.Errorf("%s %s: the exchange names host %q, want %q", filepath.Base(file), model, x.Request.Host, host)
		}
		want := readFixture(t, b.file)
		if got := x.Upstream.Body(); !bytes.Equal(got, want) {
			t.Errorf("%s %s: upstream side (%d bytes) is not the served body (%d bytes)", filepath.Base(file), model, len(got), len(want))
		}
		if !bytes.Equal(x.Client.Body(), x.Upstream.Body()) {
			t.Errorf("%s %s: client side differs from upstream in passthrough", filepath.Base(file), model)
		}
		ex := doc.Exchanges[i]
		for _, f := range ex.Findings {
			if f.Severity == "error" {
				t.Errorf("%s %s: error finding %s: %s", filepath.Base(file), model, f.ID, f.Message)
			} else {
				t.Logf("%s %s: %s finding %s: %s", filepath.Base(file), model, f.Severity, f.ID, f.Message)
			}
		}
		if len(ex.Sides) == 0 || ex.Sides[0].Message == nil {
			t.Errorf("%s %s: no assembled message", filepath.Base(file), model)
			continue
		}
		if got := ex.Sides[0].Message.result(model); !sameResult(got, results[model]) {
			t.Errorf("%s %s: seam assembled %v\nthe SDK reported %v", filepath.Base(file), model, got, results[model])
		}
	}
	for m := range results {
		if seen[m] == 0 {
			t.Errorf("%s: no exchange for %s", filepath.Base(file), m)
		}
	}
}

// inspectDoc is the part of inspect --json the SDK tests read.
type inspectDoc struct {
	Exchanges []struct {
		Ex       int    `json:"ex"`
		Protocol string `json:"protocol"`
		Outcome  string `json:"outcome"`
		Sides    []struct {
			Side    string          `json:"side"`
			Message *inspectMessage `json:"message"`
		} `json:"sides"`
		Findings []struct {
			ID       string `json:"id"`
			Severity string `json:"severity"`
			Message  string `json:"message"`
		} `json:"findings"`
	} `json:"exchanges"`
}

type inspectMessage struct {
	Choices []struct {
		Text      string `json:"text"`
		Reasoning string `json:"reasoning"`
		ToolCalls []struct {
			ID        string `json:"id"`
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"tool_calls"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *sdkUsage `json:"usage"`
	Error string    `json:"error"`
}

// result is the message as an SDK result, tool call arguments parsed.
func (m *inspectMessage) result(model string) sdkResult {
	r := sdkResult{Model: model, ToolCalls: []sdkCall{}, Usage: m.Usage, Error: m.Error}
	if len(m.Choices) > 0 {
		ch := m.Choices[0]
		r.Text, r.Reasoning, r.Finish = ch.Text, ch.Reasoning, ch.FinishReason
		for _, tc := range ch.ToolCalls {
			var args any
			if err := json.Unmarshal([]byte(tc.Arguments), &args); err != nil {
				args = map[string]any{"unparsed": tc.Arguments}
			}
			r.ToolCalls = append(r.ToolCalls, sdkCall{ID: tc.ID, Name: tc.Name, Args: args})
		}
	}
	return r
}

// checkConverseJSONL checks the JSON lines the AWS SDK's events made (one
// JSON.stringify per event, as a logger writes them): they are the ones in
// fixtures/round3 (SEAM_GEN=1 rewrites those), and seam inspect, reading
// them as an import, assembles what the SDK reported.
func checkConverseJSONL(t *testing.T, dir string, results map[string]sdkResult) {
	t.Helper()
	for model, b := range sdkBodies {
		if b.ctype != ctEventStream {
			continue
		}
		file := filepath.Join(dir, model+".jsonl")
		got, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%s: the SDK's events: %v", model, err)
			continue
		}
		name := converseJSONLFixture(b.file)
		if os.Getenv("SEAM_GEN") != "" {
			if err := os.WriteFile(filepath.Join(fixturesDir, filepath.FromSlash(name)), got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if want := readFixture(t, name); !bytes.Equal(got, want) {
			t.Errorf("%s: the AWS SDK's events differ from fixtures/%s (SEAM_GEN=1 rewrites it)", model, name)
		}
		var stdout, stderr bytes.Buffer
		if code := runSeam(context.Background(), nil, &stdout, &stderr, "inspect", "--json", file); code != 0 {
			t.Errorf("%s: inspect --json of the SDK's events exited %d: %s", model, code, stderr.Bytes())
			continue
		}
		var doc inspectDoc
		if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil || len(doc.Exchanges) != 1 || len(doc.Exchanges[0].Sides) == 0 {
			t.Errorf("%s: inspect --json of the SDK's events: %v\n%s", model, err, stdout.Bytes())
			continue
		}
		ex := doc.Exchanges[0]
		if ex.Protocol != "bedrock-converse" {
			t.Errorf("%s: the SDK's events read as %q", model, ex.Protocol)
		}
		if m := ex.Sides[0].Message; m == nil || !sameResult(m.result(model), results[model]) {
			t.Errorf("%s: seam assembled the SDK's events as %v\nthe SDK reported %v", model, m.result(model), results[model])
		}
		for _, f := range ex.Findings {
			if f.Severity == "error" {
				t.Errorf("%s: the SDK's events: error finding %s: %s", model, f.ID, f.Message)
			}
		}
	}
}

// converseJSONLFixture names the fixture of the events the AWS SDK yields
// for the ConverseStream body in file.
func converseJSONLFixture(file string) string {
	return "round3/" + strings.TrimSuffix(filepath.Base(file), ".eventstream") + ".sdk-events.jsonl"
}
