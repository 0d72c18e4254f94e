package seamtest_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/seam-dev/seam/seamtest"
)

// exampleT stands in for the *testing.T a real test gets, so the examples
// run: it prints what would fail the test and runs the cleanups at done.
type exampleT struct {
	testing.TB
	cleanups []func()
}

func (t *exampleT) Helper()                           {}
func (t *exampleT) Cleanup(f func())                  { t.cleanups = append(t.cleanups, f) }
func (t *exampleT) Errorf(format string, args ...any) { fmt.Printf("FAIL: "+format+"\n", args...) }
func (t *exampleT) Error(args ...any)                 { fmt.Println(append([]any{"FAIL:"}, args...)...) }
func (t *exampleT) Fatalf(format string, args ...any) { fmt.Printf("FATAL: "+format+"\n", args...) }
func (t *exampleT) done() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

// The request openai-python's parallel tool call test sent, as the
// fixture recorded it.
const chatRequest = `{"model":"gpt-4o-2024-08-06","messages":[{"role":"user","content":"What's the weather like in Edinburgh?"},{"role":"user","content":"What's the price of AAPL?"}],"stream":true,"stream_options":{"include_usage":true},"tools":[{"type":"function","function":{"name":"GetWeatherArgs","parameters":{"type":"object","properties":{"city":{"type":"string"},"country":{"type":"string"},"units":{"type":"string","enum":["c","f"],"default":"c"}},"required":["city","country","units"],"additionalProperties":false},"strict":true}},{"type":"function","function":{"name":"get_stock_price","parameters":{"type":"object","properties":{"ticker":{"type":"string"},"exchange":{"type":"string"}},"required":["ticker","exchange"],"additionalProperties":false},"strict":true}}]}`

// A client streams a recorded Chat Completions answer from the mock
// upstream, and Check finds nothing wrong with what it received.
func ExampleServe() {
	t := &exampleT{} // in a test: the *testing.T
	defer t.done()

	srv := seamtest.Serve(t, "../fixtures/openai-chat-tools.ndjson", seamtest.Speed(0))
	resp, err := srv.Client().Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(chatRequest))
	if err != nil {
		t.Fatalf("%v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status, resp.Header.Get("Content-Type"))
	fmt.Println(strings.Count(string(body), "data: "), "events")
	fmt.Println("check passed:", srv.Check(t))
	// Output:
	// 200 OK text/event-stream; charset=utf-8
	// 26 events
	// check passed: true
}

// A proxy under test stands between the client and the mock upstream.
// This one loses the stream's second tool call (it keeps only the events
// of tool call 0), and the in-process recorder on each side of it shows
// what went missing.
func ExampleProxy() {
	t := &exampleT{}
	defer t.done()

	srv := seamtest.Serve(t, "../fixtures/openai-chat-tools.ndjson", seamtest.Speed(0),
		seamtest.Proxy(func(upstream string) string {
			u, _ := url.Parse(upstream)
			rp := httputil.NewSingleHostReverseProxy(u)
			rp.ModifyResponse = func(r *http.Response) error {
				b, err := io.ReadAll(r.Body)
				var kept []string
				for ev := range strings.SplitAfterSeq(string(b), "\n\n") {
					if !strings.Contains(ev, `"tool_calls":[{"index":1`) {
						kept = append(kept, ev)
					}
				}
				r.Body = io.NopCloser(strings.NewReader(strings.Join(kept, "")))
				r.Header.Del("Content-Length")
				return err
			}
			proxy := httptest.NewServer(rp)
			t.Cleanup(proxy.Close)
			return proxy.URL
		}))
	resp, err := srv.Client().Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(chatRequest))
	if err != nil {
		t.Fatalf("%v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	for _, x := range srv.Exchanges(t) {
		for _, f := range x.Findings {
			if f.Severity == "error" {
				fmt.Println(f.Severity, f.ID+":", f.Message)
			}
		}
		fmt.Println(strings.SplitN(x.Divergence, ":", 2)[0])
	}
	// Output:
	// error diff.tool-call-dropped: upstream tool call get_stock_price #call_DNYTawLBoN8fj3KN6qU9N1Ou never reaches the client
	// upstream event 13 (byte 4022) and the 9 after it never reached the client, whose event 13 (byte 4022) is upstream event 23
}
