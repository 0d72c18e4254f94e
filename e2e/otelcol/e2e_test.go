package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// repo is the root of seam's repository.
var repo, _ = filepath.Abs(filepath.Join("..", ".."))

// build compiles the package at dir (in module root) into bin.
func build(t *testing.T, root, pkg, bin string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
}

// freePort returns a loopback port nothing listens on.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// start runs bin with args and env, killed when the test ends, and
// returns it with the first line of its stderr matching pattern's first
// group and the rest of its stderr.
func start(t *testing.T, env []string, pattern, bin string, args ...string) (*exec.Cmd, string, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	br := bufio.NewReader(stderr)
	if pattern == "" {
		return cmd, "", br
	}
	line, err := br.ReadString('\n')
	m := regexp.MustCompile(pattern).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("%s said %q: %v", filepath.Base(bin), line, err)
	}
	return cmd, m[1], br
}

// waitListen waits until something accepts connections at addr.
func waitListen(t *testing.T, addr string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
	}
	t.Fatalf("nothing listens at %s", addr)
}

// TestCollector runs seam record --otlp, over OTLP/HTTP and over gRPC,
// into a real OpenTelemetry Collector (the OTLP receiver and the file
// exporter, built from their Go modules) and reads the spans and metrics
// the Collector wrote: one span per exchange, named and attributed as the
// GenAI conventions say, the findings as events, the turns of a
// conversation in one session.
func TestCollector(t *testing.T) {
	tmp := t.TempDir()
	seam, col := filepath.Join(tmp, "seam"), filepath.Join(tmp, "otelcol")
	build(t, repo, "./cmd/seam", seam)
	build(t, ".", ".", col)

	out := filepath.Join(tmp, "out")
	os.Mkdir(out, 0o755)
	httpPort, grpcPort := freePort(t), freePort(t)
	colCmd, _, colErr := start(t, []string{"OTLP_HTTP_PORT=" + strconv.Itoa(httpPort), "OTLP_GRPC_PORT=" + strconv.Itoa(grpcPort), "OUT_DIR=" + out},
		"", col, "--config", "collector.yaml")
	colSaid := make(chan string, 1)
	go func() { b, _ := io.ReadAll(colErr); colSaid <- string(b) }()
	waitListen(t, fmt.Sprintf("127.0.0.1:%d", httpPort))
	waitListen(t, fmt.Sprintf("127.0.0.1:%d", grpcPort))

	fixtures := []string{filepath.Join(repo, "fixtures", "openai-responses-tool-then-text.ndjson"), filepath.Join(repo, "fixtures", "anthropic-tool-use.ndjson")}
	_, up, _ := start(t, nil, `on http://(\S+)`, seam, append([]string{"serve", "--speed", "0", "-q", "--listen", "127.0.0.1:0"}, fixtures...)...)

	captures := map[string]string{}
	for _, proto := range []struct{ name, env, endpoint string }{
		{"http", "http/protobuf", fmt.Sprintf("http://127.0.0.1:%d", httpPort)},
		{"grpc", "grpc", fmt.Sprintf("http://127.0.0.1:%d", grpcPort)},
	} {
		capture := filepath.Join(tmp, proto.name+".ndjson")
		captures[proto.name] = capture
		rec, addr, rest := start(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + proto.endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL=" + proto.env, "OTEL_RESOURCE_ATTRIBUTES=seam.e2e=" + proto.name},
			`listening on http://(\S+)`, seam, "record", "--upstream", "http://"+up, "--listen", "127.0.0.1:0", "-o", capture, "-q")
		for _, f := range fixtures {
			replay(t, f, "http://"+addr)
		}
		rec.Process.Signal(os.Interrupt)
		said, _ := io.ReadAll(rest)
		if err := rec.Wait(); err != nil || !strings.Contains(string(said), "otlp: 3 spans sent") {
			t.Fatalf("seam record over %s: %v\n%s", proto.name, err, said)
		}
	}
	colCmd.Process.Signal(syscall.SIGTERM)
	said := <-colSaid
	colCmd.Wait()

	spans := readSpans(t, filepath.Join(out, "traces.jsonl"))
	if len(spans) != 6 {
		t.Fatalf("the Collector wrote %d spans, want 6 (3 over each protocol)\ncollector said:\n%s", len(spans), said)
	}
	for name, capture := range captures {
		rep := inspect(t, seam, capture)
		sessions := map[any]bool{}
		for _, x := range rep.Exchanges {
			s := find(spans, name, x.Ex)
			if s == nil {
				t.Fatalf("%s: no span for exchange %d", name, x.Ex)
			}
			if want := "chat " + x.Model; s.Name() != want || s.Kind() != ptrace.SpanKindClient {
				t.Errorf("%s ex %d: span %q kind %v, want %q client", name, x.Ex, s.Name(), s.Kind(), want)
			}
			a := s.Attributes().AsRaw()
			if a["seam.protocol"] != x.Protocol || a["seam.capture.uri"] != "file://"+capture || a["gen_ai.request.model"] != x.Model {
				t.Errorf("%s ex %d: attributes %v", name, x.Ex, a)
			}
			if s.Events().Len() != len(x.Findings) {
				t.Errorf("%s ex %d: %d events, %d findings", name, x.Ex, s.Events().Len(), len(x.Findings))
			}
			for i, f := range x.Findings {
				if got := s.Events().At(i).Attributes().AsRaw()["seam.finding.id"]; got != f.ID {
					t.Errorf("%s ex %d event %d: %v, want %s", name, x.Ex, i, got, f.ID)
				}
			}
			if x.Protocol == "openai-responses" {
				sessions[a["session.id"]] = true
			}
		}
		if len(sessions) != 1 {
			t.Errorf("%s: the two Responses turns are in sessions %v, want one", name, sessions)
		}
	}
	names := readMetricNames(t, filepath.Join(out, "metrics.jsonl"))
	for _, m := range []string{"gen_ai.client.operation.duration", "gen_ai.client.token.usage", "gen_ai.client.operation.time_to_first_chunk", "gen_ai.client.operation.time_per_output_chunk", "seam.findings"} {
		if !names[m] {
			t.Errorf("the Collector wrote no %s (got %v)", m, names)
		}
	}
}

// replay sends the requests of capture to base, as a client would.
func replay(t *testing.T, capture, base string) {
	t.Helper()
	var reqs []struct {
		Type, Method, URL, Body, Side string
	}
	b, err := os.ReadFile(capture)
	if err != nil {
		t.Fatal(err)
	}
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		var r struct{ Type, Method, URL, Body, Side string }
		if json.Unmarshal(line, &r) == nil && r.Type == "request" && r.Side == "" {
			reqs = append(reqs, r)
		}
	}
	for _, r := range reqs {
		req, _ := http.NewRequest(r.Method, base+r.URL, strings.NewReader(r.Body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

type report struct {
	Exchanges []struct {
		Ex       int    `json:"ex"`
		Model    string `json:"model"`
		Protocol string `json:"protocol"`
		Findings []struct {
			ID string `json:"id"`
		} `json:"findings"`
	} `json:"exchanges"`
}

func inspect(t *testing.T, seam, capture string) *report {
	t.Helper()
	var stdout bytes.Buffer
	cmd := exec.Command(seam, "inspect", "--json", capture)
	cmd.Stdout = &stdout
	cmd.Run() // exits 1 when it finds something
	var r report
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("seam inspect --json %s: %v", capture, err)
	}
	return &r
}

// readSpans reads the file exporter's output: one OTLP JSON export
// request per line.
func readSpans(t *testing.T, path string) []ptrace.Span {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []ptrace.Span
	var u ptrace.JSONUnmarshaler
	for line := range bytes.SplitSeq(bytes.TrimSpace(b), []byte("\n")) {
		td, err := u.UnmarshalTraces(line)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for i := 0; i < td.ResourceSpans().Len(); i++ {
			rs := td.ResourceSpans().At(i)
			proto, _ := rs.Resource().Attributes().Get("seam.e2e")
			for j := 0; j < rs.ScopeSpans().Len(); j++ {
				ss := rs.ScopeSpans().At(j).Spans()
				for k := 0; k < ss.Len(); k++ {
					s := ss.At(k)
					s.Attributes().PutStr("test.protocol", proto.AsString())
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// find returns the span of exchange ex sent over proto.
func find(spans []ptrace.Span, proto string, ex int) *ptrace.Span {
	for i, s := range spans {
		p, _ := s.Attributes().Get("test.protocol")
		n, _ := s.Attributes().Get("seam.exchange")
		if p.AsString() == proto && n.Type() == pcommon.ValueTypeInt && n.Int() == int64(ex) {
			return &spans[i]
		}
	}
	return nil
}

func readMetricNames(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	var u pmetric.JSONUnmarshaler
	for line := range bytes.SplitSeq(bytes.TrimSpace(b), []byte("\n")) {
		md, err := u.UnmarshalMetrics(line)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		rms := md.ResourceMetrics()
		for i := 0; i < rms.Len(); i++ {
			sms := rms.At(i).ScopeMetrics()
			for j := 0; j < sms.Len(); j++ {
				for k := 0; k < sms.At(j).Metrics().Len(); k++ {
					names[sms.At(j).Metrics().At(k).Name()] = true
				}
			}
		}
	}
	return names
}
