// The tests of this example module use seam only through its public test
// package, seamtest, against the real recorded streams in seam's
// fixtures/: an agent client and a gateway under test, a gateway bug
// that loses a tool call, timing, and faults.
package example_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seam-dev/seam/examples/seamtest/agent"
	"github.com/seam-dev/seam/examples/seamtest/gateway"
	"github.com/seam-dev/seam/seamtest"
)

// chatTools is OpenAI Chat Completions streaming two parallel tool calls
// (openai-python's test stream); longText a long answer with multi-byte
// characters.
const (
	chatTools = "../../fixtures/openai-chat-tools.ndjson"
	longText  = "../../fixtures/openai-chat-long-text.ndjson"
)

// The agent assembles both tool calls of the recorded stream, and seam
// finds nothing wrong with what it received.
func TestAgent(t *testing.T) {
	srv := seamtest.Serve(t, chatTools, seamtest.Speed(0))
	a, err := agent.Complete(context.Background(), srv.Client(), srv.URL, recordedRequest(t, chatTools))
	if err != nil {
		t.Fatal(err)
	}
	if got := names(a.ToolCalls); got != "GetWeatherArgs get_stock_price" || a.FinishReason != "tool_calls" {
		t.Fatalf("tool calls %q, finish %q", got, a.FinishReason)
	}
	if a.ToolCalls[1].Arguments != `{"ticker": "AAPL", "exchange": "NASDAQ"}` {
		t.Fatalf("arguments %q", a.ToolCalls[1].Arguments)
	}
	srv.Check(t)
}

// The gateway, between the agent and the upstream, swaps the alias for
// the model and relays every event: seam compares the two sides of it and
// finds nothing to fail on.
func TestGateway(t *testing.T) {
	srv := seamtest.Serve(t, chatTools, seamtest.Speed(0), seamtest.Proxy(startGateway(t, gateway.Options{})))
	a, err := agent.Complete(context.Background(), srv.Client(), srv.URL, aliased(t, recordedRequest(t, chatTools)))
	if err != nil {
		t.Fatal(err)
	}
	if got := names(a.ToolCalls); got != "GetWeatherArgs get_stock_price" {
		t.Fatalf("tool calls %q", got)
	}
	srv.Check(t)
}

// A gateway that keeps only tool call 0 fails the test: Check names the
// dropped call (diff.tool-call-dropped) and the first event the client
// never got.
func TestGatewayDropsToolCall(t *testing.T) {
	srv := seamtest.Serve(t, chatTools, seamtest.Speed(0), seamtest.Proxy(startGateway(t, gateway.Options{OneToolCall: true})))
	a, err := agent.Complete(context.Background(), srv.Client(), srv.URL, aliased(t, recordedRequest(t, chatTools)))
	if err != nil {
		t.Fatal(err)
	}
	if got := names(a.ToolCalls); got != "GetWeatherArgs" {
		t.Fatalf("the buggy gateway passed tool calls %q", got)
	}
	ft := &failures{TB: t}
	if srv.Check(ft) {
		t.Fatal("Check passed a gateway that drops a tool call")
	}
	got := ft.String()
	for _, want := range []string{
		"error diff.tool-call-dropped: upstream tool call get_stock_price",
		"first divergent event: upstream event 13",
		"never reached the client",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the failure lacks %q:\n%s", want, got)
		}
	}
	t.Logf("what the test would print:\n%s", got)
}

// At the recorded timing the stream takes as long as it took the real
// API; scaled to zero it takes none of that.
func TestTiming(t *testing.T) {
	body := recordedRequest(t, chatTools)
	took := func(opts ...seamtest.Option) time.Duration {
		srv := seamtest.Serve(t, chatTools, opts...)
		t0 := time.Now()
		if _, err := agent.Complete(context.Background(), srv.Client(), srv.URL, body); err != nil {
			t.Fatal(err)
		}
		srv.Check(t)
		return time.Since(t0)
	}
	recorded := took() // the recorded timing: 0.42 s to the first byte, 0.98 s in all
	if recorded < 950*time.Millisecond {
		t.Fatalf("at the recorded timing the stream took %s, less than the recording's 0.98 s", recorded)
	}
	if zero := took(seamtest.Speed(0)); zero >= recorded/2 {
		t.Fatalf("scaled to zero the stream took %s, at the recorded timing %s", zero, recorded)
	}
}

// Faults injected by the mock upstream: a UTF-8 character ("°")
// split between two reads reaches the agent whole through the gateway, and a 429
// reaches it as a rate limit, which Check reports.
func TestFaults(t *testing.T) {
	t.Run("split-rune", func(t *testing.T) {
		body := recordedRequest(t, longText)
		plain := seamtest.Serve(t, longText, seamtest.Speed(0))
		want, err := agent.Complete(context.Background(), plain.Client(), plain.URL, body)
		if err != nil {
			t.Fatal(err)
		}
		srv := seamtest.Serve(t, longText, seamtest.Speed(0), seamtest.Fault("split-rune"),
			seamtest.Proxy(startGateway(t, gateway.Options{})))
		got, err := agent.Complete(context.Background(), srv.Client(), srv.URL, body)
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != want.Text || !strings.Contains(got.Text, "°C") {
			t.Fatalf("text under split-rune differs: %d bytes, want %d", len(got.Text), len(want.Text))
		}
		srv.Check(t)
	})
	t.Run("status=429", func(t *testing.T) {
		srv := seamtest.Serve(t, chatTools, seamtest.Speed(0), seamtest.Fault("status=429:7"))
		_, err := agent.Complete(context.Background(), srv.Client(), srv.URL, recordedRequest(t, chatTools))
		var se *agent.StatusError
		if !errors.As(err, &se) || se.Status != 429 || se.RetryAfter != "7" {
			t.Fatalf("got %v, want a 429 with Retry-After 7", err)
		}
		ft := &failures{TB: t}
		if srv.Check(ft) || !strings.Contains(ft.String(), "error http.status") {
			t.Fatalf("Check on a 429: %q", ft.String())
		}
	})
}

// startGateway returns a seamtest.Proxy start function running the
// gateway under test in front of the mock upstream.
func startGateway(t *testing.T, o gateway.Options) func(upstream string) string {
	return func(upstream string) string {
		tr := &http.Transport{DisableCompression: true}
		o.Models = map[string]string{"fast": "gpt-4o-2024-08-06"}
		srv := httptest.NewServer(gateway.New(upstream, &http.Client{Transport: tr}, o))
		t.Cleanup(func() {
			srv.Close()
			tr.CloseIdleConnections()
		})
		return srv.URL
	}
}

// aliased asks for the model by the gateway's alias.
func aliased(t *testing.T, body []byte) []byte {
	t.Helper()
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	req["model"] = "fast"
	out, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// recordedRequest returns the body of the first request recorded in a
// capture (an NDJSON file whose "request" lines carry it).
func recordedRequest(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var line struct {
			Type string `json:"type"`
			Body string `json:"body"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Type == "request" {
			return []byte(line.Body)
		}
	}
	t.Fatalf("%s: no request line", path)
	return nil
}

func names(calls []agent.ToolCall) string {
	var s []string
	for _, c := range calls {
		s = append(s, c.Name)
	}
	return strings.Join(s, " ")
}

// failures is a testing.TB that keeps what a helper reports, so that a
// test can assert that the helper fails a test.
type failures struct {
	testing.TB
	mu   sync.Mutex
	msgs []string
}

func (f *failures) Helper() {}
func (f *failures) Error(args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.msgs = append(f.msgs, fmt.Sprint(args...))
}
func (f *failures) Errorf(format string, args ...any) { f.Error(fmt.Sprintf(format, args...)) }
func (f *failures) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.msgs, "\n")
}
