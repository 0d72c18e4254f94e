package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/seam-dev/seam/otlpexport"
	"github.com/seam-dev/seam/request"
	"github.com/seam-dev/seam/tape"
)

// otlpSecret is the API key the OTLP tests' clients send: no span may
// carry it.
const otlpSecret = "sk-seam-otlp-test-7f3a9c"

// otlpFamily is a capture of one protocol family served as the upstream
// of a recording.
type otlpFamily struct {
	name, src, provider string
	// fault, when set, is a seam serve --fault applied to the upstream.
	fault string
	// content records with --otlp-content.
	content bool
	// findings is set when inspect finds something in the recording, so
	// the span must carry events.
	findings bool
}

var otlpFamilies = []otlpFamily{
	{name: "openai-chat", src: "openai-chat-tools.ndjson", provider: "openai"},
	{name: "openai-chat-content", src: "openai-chat-tools.ndjson", provider: "openai", content: true},
	{name: "openai-chat-429", src: "openai-chat-long-text.ndjson", provider: "openai", fault: "status=429:2"},
	{name: "openai-responses", src: "openai-responses-tool-then-text.ndjson", provider: "openai"},
	{name: "anthropic", src: "anthropic-tool-use.ndjson", provider: "anthropic", findings: true},
	{name: "gemini", src: "import/gemini-openinference-sse-parallel-function-calls.yaml", provider: "gcp.gemini", findings: true},
	{name: "bedrock", src: "import/bedrock-converse-stream-titan-guardrail.yaml", provider: "aws.bedrock", findings: true},
	{name: "cohere", src: "providers/cohere/cohere-v2-stream-text.yaml", provider: "cohere"},
	{name: "mistral", src: "import/mistral-stream-text.yaml", provider: "openai"}, // Chat Completions on loopback: no host names Mistral
	{name: "ollama", src: "import/ollama-openinference-chat-stream-thinking.yaml", provider: "ollama"},
}

// TestOTLPFamilies records each protocol family through seam record
// --otlp (the upstream is seam serve answering from a fixture) into a
// loopback OTLP/HTTP receiver, and checks every span against seam inspect
// --json of the capture it recorded: the GenAI attributes, seam's own,
// the findings as events, the sessions across turns, and that no content
// and no secret went out unless --otlp-content asked for the content.
func TestOTLPFamilies(t *testing.T) {
	for _, fam := range otlpFamilies {
		t.Run(fam.name, func(t *testing.T) {
			dir := t.TempDir()
			src := fixtureCapture(t, dir, filepath.Join(fixturesDir, fam.src))
			serveArgs := []string{"serve", "--speed", "0", "-q", "--listen", "127.0.0.1:0"}
			if fam.fault != "" {
				serveArgs = append(serveArgs, "--fault", fam.fault)
			}
			_, upAddr := startSeam(t, `on http://(\S+)`, append(serveArgs, src)...)
			recv := newOTLPRecv(t)
			out := filepath.Join(dir, "rec.ndjson")
			args := []string{"record", "--upstream", "http://" + upAddr, "--listen", "127.0.0.1:0", "-o", out, "-q", "--otlp", recv.URL()}
			if fam.content {
				args = append(args, "--otlp-content")
			}
			cmd, addr, rest := launchSeam(t, `listening on http://(\S+)`, args...)
			c, err := tape.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range c.Exchanges {
				replayRequest(t, "http://"+addr, x.Request)
			}
			stderr := stopRecording(t, cmd, rest)
			if !regexp.MustCompile(fmt.Sprintf(`otlp: %d spans? sent to %s/v1/traces\n`, len(c.Exchanges), regexp.QuoteMeta(recv.URL()))).MatchString(stderr) {
				t.Errorf("stderr does not say %d spans were sent:\n%s", len(c.Exchanges), stderr)
			}
			spans := recv.Spans()
			if len(spans) != len(c.Exchanges) {
				t.Fatalf("%d spans, want %d", len(spans), len(c.Exchanges))
			}
			rep := inspectOTLP(t, out)
			rec, err := tape.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if t.Failed() {
					t.Logf("seam record said:\n%s", stderr)
				}
			}()
			checkSpans(t, fam, rec, rep, spans)
			checkNothingLeaks(t, fam, rec, recv)
			checkBackfill(t, out, spans, fam.content)
			for _, m := range []string{otlpexport.MetricDuration, otlpexport.MetricTokens} {
				if recv.Metrics()[m] == 0 && (m != otlpexport.MetricTokens || fam.fault == "") {
					t.Errorf("no %s data point received (got %v)", m, recv.Metrics())
				}
			}
			if fam.findings && recv.Metrics()[otlpexport.MetricFindings] == 0 {
				t.Errorf("no %s data point received", otlpexport.MetricFindings)
			}
		})
	}
}

// fixtureCapture returns a capture of the fixture at path: itself, or
// what seam import makes of a cassette.
func fixtureCapture(t *testing.T, dir, path string) string {
	t.Helper()
	if strings.HasSuffix(path, ".ndjson") {
		return path
	}
	out := filepath.Join(dir, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))+".ndjson")
	if b, err := exec.Command("seam", "import", "-o", out, path).CombinedOutput(); err != nil {
		t.Fatalf("seam import %s: %v\n%s", path, err, b)
	}
	return out
}

// replayRequest sends a recorded request to base, with an API key, and
// reads the answer to its end.
func replayRequest(t *testing.T, base string, r *tape.Request) {
	t.Helper()
	req, err := http.NewRequest(r.Method, base+r.URL, bytes.NewReader(r.Body))
	if err != nil {
		t.Fatal(err)
	}
	if ct := r.Headers["content-type"]; len(ct) > 0 {
		req.Header.Set("Content-Type", ct[0])
	}
	req.Header.Set("Authorization", "Bearer "+otlpSecret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// stopRecording interrupts seam record, waits for it and returns the
// rest of its stderr.
func stopRecording(t *testing.T, cmd *exec.Cmd, rest io.Reader) string {
	t.Helper()
	cmd.Process.Signal(os.Interrupt)
	b, _ := io.ReadAll(rest)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("seam record: %v\n%s", err, b)
	}
	return string(b)
}

// inspected is the part of seam inspect --json the spans are checked
// against.
type inspected struct {
	Exchanges []struct {
		Ex       int    `json:"ex"`
		Model    string `json:"model"`
		Protocol string `json:"protocol"`
		Endpoint string `json:"endpoint"`
		Status   int    `json:"status"`
		Outcome  string `json:"outcome"`
		Error    string `json:"error"`
		TTFB     int64  `json:"ttfb_ns"`
		Sides    []struct {
			Side    string `json:"side"`
			Outcome string `json:"outcome"`
			Stream  bool   `json:"stream"`
			Message *struct {
				ID      string `json:"id"`
				Model   string `json:"model"`
				Choices []struct {
					Text         string `json:"text"`
					FinishReason string `json:"finish_reason"`
				} `json:"choices"`
				Usage *struct {
					Input         int `json:"input"`
					Output        int `json:"output"`
					Reasoning     int `json:"reasoning"`
					CacheRead     int `json:"cache_read"`
					CacheCreation int `json:"cache_creation"`
				} `json:"usage"`
			} `json:"message"`
		} `json:"sides"`
		Metrics *struct {
			Gaps   int   `json:"gaps"`
			GapP50 int64 `json:"gap_p50_ns"`
			GapP99 int64 `json:"gap_p99_ns"`
			Stalls int   `json:"stalls"`
		} `json:"metrics"`
		Session *struct {
			ID   string `json:"id"`
			Turn int    `json:"turn"`
		} `json:"session"`
		Findings []struct {
			ID       string `json:"id"`
			Severity string `json:"severity"`
			Message  string `json:"message"`
			At       struct {
				Side  string `json:"side"`
				Event int    `json:"event"`
			} `json:"at"`
		} `json:"findings"`
	} `json:"exchanges"`
}

// inspectOTLP runs seam inspect --json on path.
func inspectOTLP(t *testing.T, path string) *inspected {
	t.Helper()
	var stdout bytes.Buffer
	cmd := exec.Command("seam", "inspect", "--json", path)
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	var rep inspected
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("seam inspect --json %s: %v", path, err)
	}
	return &rep
}

// checkSpans compares each exchange's span with what inspect says of it.
func checkSpans(t *testing.T, fam otlpFamily, c *tape.Capture, rep *inspected, spans []recvSpan) {
	t.Helper()
	sessions := map[string]bool{}
	for i, x := range rep.Exchanges {
		s, err := spanOf(spans, x.Ex)
		if err != nil {
			t.Fatalf("exchange %d: %v", x.Ex, err)
		}
		tx := c.Exchanges[i]
		want := map[string]any{
			"gen_ai.provider.name":      fam.provider,
			"gen_ai.request.model":      x.Model,
			"seam.protocol":             x.Protocol,
			"seam.capture.uri":          otlpexport.FileURI(c.Name),
			"seam.capture.id":           c.Header.ID,
			"http.response.status_code": int64(x.Status),
			"server.address":            "127.0.0.1",
			"seam.findings.count":       int64(len(x.Findings)),
			"seam.upstream.sha256":      tx.Upstream.End.SHA256,
			"seam.client.sha256":        tx.Client.End.SHA256,
			"seam.sides.verdict":        otlpexport.VerdictIdentical,
		}
		op := s.Attrs["gen_ai.operation.name"]
		if wantOp := map[bool]string{true: "generate_content", false: "chat"}[x.Protocol == "gemini"]; op != wantOp {
			t.Errorf("ex %d: gen_ai.operation.name %v, want %s", x.Ex, op, wantOp)
		}
		if name := fmt.Sprint(op) + " " + x.Model; s.Name != name {
			t.Errorf("ex %d: span name %q, want %q", x.Ex, s.Name, name)
		}
		if s.Kind != ptrace.SpanKindClient {
			t.Errorf("ex %d: span kind %v, want client", x.Ex, s.Kind)
		}
		start := c.Header.Started.Add(time.Duration(tx.Request.T))
		end := c.Header.Started.Add(time.Duration(max(tx.Upstream.End.T, tx.Client.End.T)))
		if !s.Start.Equal(start) || !s.End.Equal(end) {
			t.Errorf("ex %d: span %v to %v, want the recorded %v to %v", x.Ex, s.Start, s.End, start, end)
		}
		if s.SchemaURL != otlpexport.SchemaURL {
			t.Errorf("ex %d: schema URL %q", x.Ex, s.SchemaURL)
		}
		var view, stream = -1, false
		for k, side := range x.Sides {
			want["seam."+side.Side+".outcome"] = side.Outcome
			if side.Side == "client" || view < 0 {
				view = k
			}
			stream = stream || side.Stream
		}
		if v := x.Sides[view]; v.Message != nil {
			m := v.Message
			optional(want, "gen_ai.response.id", m.ID)
			optional(want, "gen_ai.response.model", m.Model)
			var reasons []any
			for _, ch := range m.Choices {
				if ch.FinishReason != "" {
					reasons = append(reasons, ch.FinishReason)
				}
			}
			if len(reasons) > 0 {
				want["gen_ai.response.finish_reasons"] = reasons
			}
			if u := m.Usage; u != nil {
				want["gen_ai.usage.input_tokens"] = int64(u.Input)
				want["gen_ai.usage.output_tokens"] = int64(u.Output)
				optionalInt(want, "gen_ai.usage.cache_read.input_tokens", u.CacheRead)
				optionalInt(want, "gen_ai.usage.cache_creation.input_tokens", u.CacheCreation)
				optionalInt(want, "gen_ai.usage.reasoning.output_tokens", u.Reasoning)
			}
		}
		if req := request.Parse(tx.Request.Body); req.Stream || stream {
			want["gen_ai.request.stream"] = true
			if x.TTFB > 0 {
				want["gen_ai.response.time_to_first_chunk"] = float64(x.TTFB) / 1e9
			}
		}
		if m := x.Metrics; m != nil && m.Gaps > 0 {
			want["seam.stream.gap.p50"] = float64(m.GapP50) / 1e9
			want["seam.stream.gap.p99"] = float64(m.GapP99) / 1e9
			want["seam.stream.stalls"] = int64(m.Stalls)
		}
		if x.Session != nil {
			want["gen_ai.conversation.id"] = x.Session.ID
			want["session.id"] = x.Session.ID
			want["seam.session.turn"] = int64(x.Session.Turn)
			sessions[x.Session.ID] = true
		}
		if strings.HasPrefix(fam.fault, "status=") && x.Status != 429 {
			t.Errorf("ex %d: status %d under --fault %s", x.Ex, x.Status, fam.fault)
		}
		if x.Status >= 400 {
			want["error.type"] = strconv.Itoa(x.Status)
			if s.StatusCode != ptrace.StatusCodeError {
				t.Errorf("ex %d: status %v for HTTP %d", x.Ex, s.StatusCode, x.Status)
			}
		} else if _, ok := s.Attrs["error.type"]; ok {
			t.Errorf("ex %d: error.type %v on a %s exchange", x.Ex, s.Attrs["error.type"], x.Outcome)
		}
		for k, v := range want {
			got, ok := s.Attrs[k]
			if f, isF := v.(float64); isF {
				g, _ := got.(float64)
				if !ok || math.Abs(g-f) > 1e-9 {
					t.Errorf("ex %d: %s = %v, want %v", x.Ex, k, got, v)
				}
				continue
			}
			if !ok || fmt.Sprint(got) != fmt.Sprint(v) {
				t.Errorf("ex %d: %s = %#v, want %#v", x.Ex, k, got, v)
			}
		}
		if len(s.Events) != len(x.Findings) {
			t.Fatalf("ex %d: %d events, want one per finding (%d)", x.Ex, len(s.Events), len(x.Findings))
		}
		for k, f := range x.Findings {
			ev := s.Events[k]
			wantEv := map[string]any{"seam.finding.id": f.ID, "seam.finding.severity": f.Severity, "seam.finding.message": f.Message}
			if f.At.Side != "" {
				wantEv["seam.finding.side"] = f.At.Side
			}
			if f.At.Event >= 0 {
				wantEv["seam.finding.event"] = int64(f.At.Event)
			}
			if ev.Name != otlpexport.FindingEvent || len(ev.Attrs) != len(wantEv) {
				t.Errorf("ex %d event %d: %s %v, want %v", x.Ex, k, ev.Name, ev.Attrs, wantEv)
			}
			for a, v := range wantEv {
				if fmt.Sprint(ev.Attrs[a]) != fmt.Sprint(v) {
					t.Errorf("ex %d event %d: %s = %v, want %v", x.Ex, k, a, ev.Attrs[a], v)
				}
			}
		}
		if fam.findings && len(x.Findings) == 0 {
			t.Errorf("ex %d: the fixture was chosen for its findings and has none", x.Ex)
		}
		if rs := s.Resource["service.name"]; rs != "seam" {
			t.Errorf("resource service.name %v", rs)
		}
	}
	if fam.name == "openai-responses" {
		// Two turns of one conversation: one session, turns 1 and 2.
		if len(sessions) != 1 || len(rep.Exchanges) != 2 || rep.Exchanges[1].Session.Turn != 2 {
			t.Errorf("sessions %v across %d exchanges, want one session of two turns", sessions, len(rep.Exchanges))
		}
	}
}

func optional(want map[string]any, k, v string) {
	if v != "" {
		want[k] = v
	}
}

func optionalInt(want map[string]any, k string, v int) {
	if v > 0 {
		want[k] = int64(v)
	}
}

// checkNothingLeaks checks that no OTLP request carried the API key, nor,
// without --otlp-content, the messages; with it, that they are there.
func checkNothingLeaks(t *testing.T, fam otlpFamily, c *tape.Capture, recv *otlpRecv) {
	t.Helper()
	var texts []string
	for _, x := range c.Exchanges {
		for _, m := range request.Parse(x.Request.Body).Messages {
			if len(m.Text) >= 8 {
				texts = append(texts, m.Text)
			}
		}
	}
	bodies := recv.Bodies()
	for _, b := range bodies {
		if bytes.Contains(b, []byte(otlpSecret)) || bytes.Contains(b, []byte("7f3a9c")) {
			t.Fatalf("an OTLP request carries the API key")
		}
		for _, txt := range texts {
			if !fam.content && bytes.Contains(b, []byte(txt)) {
				t.Errorf("an OTLP request carries the message %q without --otlp-content", txt)
			}
		}
	}
	for _, s := range recv.Spans() {
		keys := []string{"gen_ai.input.messages", "gen_ai.output.messages"}
		for _, k := range keys {
			v, ok := s.Attrs[k]
			if ok != fam.content {
				t.Errorf("%s present: %v, want %v", k, ok, fam.content)
			}
			if ok && !json.Valid([]byte(fmt.Sprint(v))) {
				t.Errorf("%s is not JSON: %v", k, v)
			}
		}
		if fam.content && len(texts) > 0 && !strings.Contains(fmt.Sprint(s.Attrs["gen_ai.input.messages"]), texts[len(texts)-1]) {
			t.Errorf("gen_ai.input.messages lacks the last message %q: %v", texts[len(texts)-1], s.Attrs["gen_ai.input.messages"])
		}
	}
	if len(texts) == 0 && !fam.content {
		t.Logf("no message text to look for")
	}
}

// checkBackfill sends the recorded capture again with seam export
// --format otlp, configured by the environment alone, and checks that
// the spans are the live ones: same ids, same attributes, same events.
func checkBackfill(t *testing.T, capture string, live []recvSpan, content bool) {
	t.Helper()
	recv := newOTLPRecv(t)
	args := []string{"export", "--format", "otlp", capture}
	if content {
		args = append(args, "--otlp-content")
	}
	cmd := exec.Command("seam", args...)
	cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT="+recv.URL(), "OTEL_SERVICE_NAME=backfill")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("seam export --format otlp: %v\n%s", err, out)
	}
	again := recv.Spans()
	if len(again) != len(live) {
		t.Fatalf("export sent %d spans, record %d\n%s", len(again), len(live), out)
	}
	for i, s := range live {
		a := again[i]
		if a.TraceID != s.TraceID || a.SpanID != s.SpanID || a.Name != s.Name || !a.Start.Equal(s.Start) || !a.End.Equal(s.End) {
			t.Errorf("span %d: export sent %s/%s %q %v-%v, record %s/%s %q %v-%v", i, a.TraceID, a.SpanID, a.Name, a.Start, a.End, s.TraceID, s.SpanID, s.Name, s.Start, s.End)
		}
		if fmt.Sprint(a.Attrs) != fmt.Sprint(s.Attrs) || fmt.Sprint(a.Events) != fmt.Sprint(s.Events) {
			t.Errorf("span %d: export sent\n%v\n%v\nrecord sent\n%v\n%v", i, a.Attrs, a.Events, s.Attrs, s.Events)
		}
		if a.Resource["service.name"] != "backfill" {
			t.Errorf("OTEL_SERVICE_NAME=backfill gave service.name %v", a.Resource["service.name"])
		}
	}
}
