package seamtest_test

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/seamtest"
	"github.com/seam-dev/seam/tape"
)

const chatTools = "../fixtures/openai-chat-tools.ndjson"

// A client gets the recorded upstream body byte for byte, and Check
// passes on it.
func TestServeReplays(t *testing.T) {
	x := recorded(t, chatTools)
	srv := seamtest.Serve(t, chatTools, seamtest.Speed(0))
	resp, body := send(t, srv.Client(), srv.URL, x)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if want := x.Upstream.Body(); !bytes.Equal(body, want) {
		t.Fatalf("body differs from the recorded upstream body:\n got %q\nwant %q", body, want)
	}
	ft := newFakeT(t)
	if !srv.Check(ft) || ft.failures() != "" {
		t.Fatalf("Check failed a passing client: %s", ft.failures())
	}
	xs := srv.Exchanges(t)
	if len(xs) != 1 || xs[0].Status != 200 || xs[0].Outcome != "complete" || xs[0].Divergence != "" {
		t.Fatalf("exchanges: %+v", xs)
	}
}

// A proxy that relays every event passes; one that drops the second
// parallel tool call fails Check with diff.tool-call-dropped and the
// first event the client missed.
func TestCheckProxy(t *testing.T) {
	x := recorded(t, chatTools)
	t.Run("faithful", func(t *testing.T) {
		srv := seamtest.Serve(t, chatTools, seamtest.Speed(0), seamtest.Proxy(relay(t, nil)))
		_, body := send(t, srv.Client(), srv.URL, x)
		if !bytes.Equal(body, x.Upstream.Body()) {
			t.Fatal("the faithful relay changed the body")
		}
		srv.Check(t)
	})
	t.Run("drops a tool call", func(t *testing.T) {
		srv := seamtest.Serve(t, chatTools, seamtest.Speed(0), seamtest.Proxy(relay(t, secondToolCall)))
		send(t, srv.Client(), srv.URL, x)
		ft := newFakeT(t)
		if srv.Check(ft) {
			t.Fatal("Check passed a proxy that drops a tool call")
		}
		got := ft.failures()
		for _, want := range []string{"diff.tool-call-dropped", "get_stock_price", "first divergent event: upstream event 13 (byte 4022) and the 9 after it never reached the client", `"tool_calls":[{"index":1`} {
			if !strings.Contains(got, want) {
				t.Errorf("Check's failure lacks %q:\n%s", want, got)
			}
		}
	})
}

// Speed scales the recorded gaps: at 4 the stream takes at least a
// quarter of its recorded duration; at 0 it waits for nothing.
func TestSpeed(t *testing.T) {
	x := recorded(t, chatTools)
	recordedDur := time.Duration(x.Upstream.End.T - x.Request.T)
	for _, speed := range []float64{4, 0} {
		srv := seamtest.Serve(t, chatTools, seamtest.Speed(speed))
		t0 := time.Now()
		send(t, srv.Client(), srv.URL, x)
		took := time.Since(t0)
		if speed > 0 && took < time.Duration(float64(recordedDur)/speed) {
			t.Errorf("speed %g: the stream took %s, less than its recorded %s scaled", speed, took, recordedDur)
		}
		if speed == 0 && took >= recordedDur {
			t.Errorf("speed 0: the stream took %s, as long as its recorded %s", took, recordedDur)
		}
	}
}

// A status fault answers with the error, and Check names it.
func TestFaultStatus(t *testing.T) {
	x := recorded(t, chatTools)
	srv := seamtest.Serve(t, chatTools, seamtest.Speed(0), seamtest.Fault("status=429:2"))
	resp, _ := send(t, srv.Client(), srv.URL, x)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("status %d, Retry-After %q; want 429 and 2", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	ft := newFakeT(t)
	if srv.Check(ft) || !strings.Contains(ft.failures(), "http.status") {
		t.Fatalf("Check on a 429: %q", ft.failures())
	}
}

// A split UTF-8 rune reaches a byte-faithful proxy's client whole.
func TestFaultSplitRune(t *testing.T) {
	const long = "../fixtures/openai-chat-long-text.ndjson"
	x := recorded(t, long)
	srv := seamtest.Serve(t, long, seamtest.Speed(0), seamtest.Fault("split-rune"), seamtest.Proxy(relay(t, nil)))
	_, body := send(t, srv.Client(), srv.URL, x)
	if !bytes.Equal(body, x.Upstream.Body()) {
		t.Fatal("the body changed under split-rune")
	}
	srv.Check(t)
}

// A request that matches nothing fails the test, once, with why.
func TestMiss(t *testing.T) {
	x := recorded(t, chatTools)
	other := *x
	req := *x.Request
	req.Body = bytes.Replace(req.Body, []byte("Edinburgh"), []byte("Glasgow"), 1)
	other.Request = &req
	ft := newFakeT(t)
	srv := seamtest.Serve(ft, chatTools, seamtest.Speed(0))
	resp, _ := send(t, srv.Client(), srv.URL, &other)
	if resp.StatusCode != 404 {
		t.Fatalf("status %d, want 404", resp.StatusCode)
	}
	if srv.Check(ft) {
		t.Fatal("Check passed a request that matched nothing")
	}
	ft.run()
	if got := ft.failures(); strings.Count(got, "miss POST /v1/chat/completions") != 1 || !strings.Contains(got, "Glasgow") {
		t.Fatalf("Check and cleanup reported %q", got)
	}
}

// Mode once records through the upstream when the capture does not
// exist, and replays the recording without it afterwards.
func TestModeOnce(t *testing.T) {
	x := recorded(t, chatTools)
	upstream := seamtest.Serve(t, chatTools, seamtest.Speed(0))
	path := filepath.Join(t.TempDir(), "agent.ndjson")
	ft := newFakeT(t)
	srv := seamtest.Serve(ft, path, seamtest.Mode("once"), seamtest.Upstream(upstream.URL))
	_, first := send(t, srv.Client(), srv.URL, x)
	ft.run()
	if ft.failures() != "" {
		t.Fatal(ft.failures())
	}
	c, err := tape.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != 1 || !bytes.Equal(c.Exchanges[0].Upstream.Body(), x.Upstream.Body()) {
		t.Fatalf("recorded %d exchanges", len(c.Exchanges))
	}
	if strings.Contains(string(readFile(t, path)), "sk-test-not-a-key") {
		t.Fatal("the recording holds the API key")
	}
	replayed := seamtest.Serve(t, path, seamtest.Mode("once"), seamtest.Speed(0))
	_, again := send(t, replayed.Client(), replayed.URL, x)
	if !bytes.Equal(first, again) {
		t.Fatal("the replay differs from the recording")
	}
	replayed.Check(t)
}

// Options that are wrong fail the test at once.
func TestBadOptions(t *testing.T) {
	for _, opt := range []seamtest.Option{seamtest.Fault("split-nothing"), seamtest.Mode("sometimes"),
		seamtest.Mode("all"), seamtest.Speed(-1), seamtest.FailOn("fatal")} {
		ft := newFakeT(t)
		func() {
			defer func() { recover() }()
			seamtest.Serve(ft, chatTools, opt)
		}()
		ft.run()
		if !strings.HasPrefix(ft.failures(), "seamtest: ") {
			t.Errorf("got %q", ft.failures())
		}
	}
	ft := newFakeT(t)
	seamtest.Serve(ft, "testdata/does-not-exist.ndjson")
	ft.run()
	if !strings.Contains(ft.failures(), "does-not-exist.ndjson") {
		t.Errorf("a missing capture: %q", ft.failures())
	}
}

// Once a test's cleanup ran, no goroutine of seamtest's is left.
func TestNoGoroutineLeak(t *testing.T) {
	x := recorded(t, chatTools)
	before := runtime.NumGoroutine()
	t.Run("serve", func(t *testing.T) {
		whole := seamtest.Serve(t, chatTools, seamtest.Speed(0))
		send(t, whole.Client(), whole.URL, x)
		whole.Check(t)
		sandwich := seamtest.Serve(t, chatTools, seamtest.Speed(0), seamtest.Proxy(relay(t, nil)))
		send(t, sandwich.Client(), sandwich.URL, x)
		sandwich.Check(t)
		upstream := seamtest.Serve(t, chatTools, seamtest.Speed(0))
		vcr := seamtest.Serve(t, filepath.Join(t.TempDir(), "new.ndjson"), seamtest.Mode("once"), seamtest.Upstream(upstream.URL))
		send(t, vcr.Client(), vcr.URL, x)
	})
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines before, %d after the cleanup:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

func TestMain(m *testing.M) {
	os.Exit(m.Run())
}

const anthropic = "../fixtures/anthropic-tool-use.ndjson"

// Several captures answer together; FailOn lowers the severity that
// fails: the Anthropic stream's last event has no blank line after it,
// a warning.
func TestCapturesFailOn(t *testing.T) {
	chat, msgs := recorded(t, chatTools), recorded(t, anthropic)
	for _, warn := range []bool{false, true} {
		opts := []seamtest.Option{seamtest.Speed(0), seamtest.Captures(anthropic)}
		if warn {
			opts = append(opts, seamtest.FailOn("warn"))
		}
		srv := seamtest.Serve(t, chatTools, opts...)
		for _, x := range []*tape.Exchange{chat, msgs} {
			if _, body := send(t, srv.Client(), srv.URL, x); !bytes.Equal(body, x.Upstream.Body()) {
				t.Fatalf("%s: the body differs from the recording", x.Request.URL)
			}
		}
		ft := newFakeT(t)
		passed := srv.Check(ft)
		if passed == warn || warn != strings.Contains(ft.failures(), "warn sse.unterminated-event") {
			t.Errorf("FailOn warn %v: passed %v:\n%s", warn, passed, ft.failures())
		}
	}
}

// new_episodes replays what matches and records the rest, forwarded to
// the upstream, into RecordTo.
func TestModeNewEpisodes(t *testing.T) {
	chat, msgs := recorded(t, chatTools), recorded(t, anthropic)
	upstream := seamtest.Serve(t, anthropic, seamtest.Speed(0))
	dir := t.TempDir()
	ft := newFakeT(t)
	srv := seamtest.Serve(ft, chatTools, seamtest.Speed(0), seamtest.Mode("new_episodes"), seamtest.Upstream(upstream.URL), seamtest.RecordTo(dir))
	for _, x := range []*tape.Exchange{chat, msgs} {
		if resp, body := send(t, srv.Client(), srv.URL, x); resp.StatusCode != 200 || !bytes.Equal(body, x.Upstream.Body()) {
			t.Fatalf("%s: status %d, or the body differs from the recording", x.Request.URL, resp.StatusCode)
		}
	}
	ft.run()
	if ft.failures() != "" {
		t.Fatal(ft.failures())
	}
	if n := len(upstream.Exchanges(t)); n != 1 {
		t.Fatalf("the upstream answered %d requests, want the one new episode", n)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.ndjson"))
	if len(files) != 1 {
		t.Fatalf("recordings in RecordTo: %v", files)
	}
	c, err := tape.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != 1 || c.Exchanges[0].Request.URL != "/v1/messages" || !bytes.Equal(c.Exchanges[0].Client.Body(), msgs.Upstream.Body()) {
		t.Fatalf("recorded %d exchanges", len(c.Exchanges))
	}
}
