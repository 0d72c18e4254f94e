package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/seam-dev/seam/tape"
)

// startRecord runs "seam record" as a subprocess in front of upstream and
// returns the command and its listen address, read from its stderr banner.
func startRecord(t *testing.T, upstream, out string, flags ...string) (*exec.Cmd, string) {
	t.Helper()
	args := append([]string{"record", "--upstream", upstream, "--listen", "127.0.0.1:0", "-o", out}, flags...)
	return startSeam(t, `listening on http://(\S+)`, args...)
}

// startSeam runs seam with args and returns the command and the address its
// first stderr line announces (matched by pattern's first group).
func startSeam(t *testing.T, pattern string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd, addr, rest := launchSeam(t, pattern, args...)
	go io.Copy(io.Discard, rest)
	return cmd, addr
}

// launchSeam runs seam with args, killed when the test ends, and returns
// the command, the address its first stderr line announces (pattern's
// first group) and the rest of its stderr, which the caller must read.
func launchSeam(t *testing.T, pattern string, args ...string) (*exec.Cmd, string, *bufio.Reader) {
	t.Helper()
	cmd, stderr := spawnSeam(t, nil, args...)
	br := bufio.NewReader(stderr)
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatalf("seam %s said nothing: %v", args[0], err)
	}
	m := regexp.MustCompile(pattern).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("banner %q", line)
	}
	return cmd, m[1], br
}

// spawnSeam starts seam with args, its stdout to stdout (nil: to
// /dev/null), killed when the test ends, and returns the command and its
// stderr, which the caller must read.
func spawnSeam(t *testing.T, stdout *os.File, args ...string) (*exec.Cmd, io.Reader) {
	t.Helper()
	cmd := exec.Command("seam", args...)
	if stdout != nil {
		cmd.Stdout = stdout
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, stderr
}

// postJSON posts body to url and returns the status and the whole answer.
func postJSON(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// blockingUpstream streams events and then blocks until the test ends.
func blockingUpstream(t *testing.T, events int) *httptest.Server {
	hold := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range events {
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"token %d é\"}}]}\n\n", i)
			w.(http.Flusher).Flush()
		}
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(hold); up.Close() })
	return up
}

// readEvents reads n events from the stream.
func readEvents(t *testing.T, body io.Reader, n int) {
	t.Helper()
	br := bufio.NewReader(body)
	for got := 0; got < n; {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("after %d events: %v", got, err)
		}
		if strings.HasPrefix(line, "data: ") {
			got++
		}
	}
}

// TestKill9MidStream kills "seam record" with SIGKILL in the middle of a
// stream: every complete line of the capture must decode, and a torn last
// line is only a warning.
func TestKill9MidStream(t *testing.T) {
	up := blockingUpstream(t, 200)
	out := filepath.Join(t.TempDir(), "killed.ndjson")
	cmd, addr := startRecord(t, up.URL, out)

	resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	readEvents(t, resp.Body, 200)
	// The capture writer runs behind the stream: wait until chunks are on
	// disk, so the kill lands mid-stream with a partly written exchange.
	waitForFile(t, out, `"type":"chunk"`)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	c, err := tape.ReadFile(out)
	if err != nil {
		t.Fatalf("capture after kill -9 does not decode: %v", err)
	}
	for _, w := range c.Warnings {
		var le *tape.LineError
		if !errors.As(w, &le) {
			t.Errorf("warning without file and line: %v", w)
		}
	}
	if len(c.Exchanges) != 1 || c.Exchanges[0].Request == nil {
		t.Fatalf("want the exchange's request line, got %d exchanges", len(c.Exchanges))
	}
	x := c.Exchanges[0]
	if len(x.Upstream.Chunks) == 0 {
		t.Errorf("no upstream chunk reached the file before the kill")
	}
	if x.Upstream.End != nil {
		t.Errorf("an end line for a stream that was cut by kill -9: %+v", x.Upstream.End)
	}
}

// waitForFile polls path until it contains want, failing after 10 s.
func waitForFile(t *testing.T, path, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never contained %s", path, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestInterruptEndsRecording: ctrl-c is how a recording ends: "seam record"
// exits 0 with a summary, and the capture is complete up to that point,
// the stream seam had to cut ending recorder_shutdown.
func TestInterruptEndsRecording(t *testing.T) {
	up := blockingUpstream(t, 3)
	out := filepath.Join(t.TempDir(), "interrupted.ndjson")
	cmd, addr, br := launchSeam(t, `listening on http://(\S+)`, "record", "--upstream", up.URL, "--listen", "127.0.0.1:0", "-o", out)
	resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	readEvents(t, resp.Body, 3)
	go io.Copy(io.Discard, resp.Body)
	rest := make(chan string, 1)
	go func() { b, _ := io.ReadAll(br); rest <- string(b) }()
	cmd.Process.Signal(os.Interrupt)
	// stderr is read to its end (seam exiting closes it) before Wait, which
	// closes the pipe as soon as the process is gone and may cut the read.
	said := <-rest
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit %v, want status 0", err)
	}
	if !strings.Contains(said, "1 exchange recorded to "+out) || strings.Contains(said, "seam: interrupted") {
		t.Errorf("stderr after ctrl-c:\n%s", said)
	}
	c, err := tape.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) > 0 {
		t.Errorf("warnings after a clean interrupt: %v", c.Warnings)
	}
	if len(c.Exchanges) != 1 || c.Exchanges[0].Client.End == nil {
		t.Fatalf("the in-flight exchange was not ended in the capture")
	}
	// The stream was still open when the grace ran out: seam cut it, and
	// the capture says so rather than blaming the client, which inspect
	// does not hold against the stream.
	for _, sd := range []*tape.SideData{&c.Exchanges[0].Upstream, &c.Exchanges[0].Client} {
		if sd.End == nil || sd.End.Outcome != tape.RecorderShutdown {
			t.Errorf("end %+v, want recorder_shutdown", sd.End)
		}
	}
	if out, err := seamCombinedOutput("inspect", "--fail-on", "warn", out); err != nil || !strings.Contains(string(out), "stream.recorder-shutdown") {
		t.Errorf("seam inspect --fail-on warn of the cut stream: %v\n%s", err, out)
	}
}

// TestServeRecordReplay drives the real binaries end to end: "seam serve"
// plays the incident's upstream, "seam record --profile obsidian-xml
// --set holdback=off" shapes it live, and "seam replay" of what it recorded
// reproduces the client stream chunk for chunk; with --set holdback=on the
// replay differs and the corruption is gone.
func TestServeRecordReplay(t *testing.T) {
	_, upAddr := startSeam(t, `on http://(\S+)`, "serve", "--listen", "127.0.0.1:0", "--speed", "0", filepath.Join(fixturesDir, "incident-holdback-off.ndjson"))
	out := filepath.Join(t.TempDir(), "live.ndjson")
	rec, addr := startRecord(t, "http://"+upAddr, out, "--profile", "obsidian-xml", "--set", "holdback=off")
	src, err := tape.ReadFile(filepath.Join(fixturesDir, "incident-holdback-off.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	req := src.Exchanges[0].Request
	resp, err := http.Post("http://"+addr+req.URL, "application/json", strings.NewReader(string(req.Body)))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	rec.Process.Signal(os.Interrupt)
	rec.Wait()

	got, err := seamCombinedOutput("replay", out)
	if err != nil || !strings.Contains(string(got), "exchange 1: identical") || !strings.Contains(string(got), "engine obsidian-xml (holdback=off)") {
		t.Fatalf("seam replay: %v\n%s", err, got)
	}
	got, _ = seamCombinedOutput("replay", "--set", "holdback=on", out)
	if !strings.Contains(string(got), "exchange 1: differs at frame") || !strings.Contains(string(got), "- </use_tool<use_tool>") {
		t.Fatalf("seam replay --set holdback=on:\n%s", got)
	}
}

// TestSandwichRecord runs "seam record --proxy" around a proxy under test
// (here "seam serve" playing the incident's shaped client side stands in
// for a proxy with the bug) and checks that one capture holds both legs and
// that inspect finds the corruption the proxy introduced.
func TestSandwichRecord(t *testing.T) {
	src := filepath.Join(fixturesDir, "incident-holdback-off.ndjson")
	c, err := tape.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	x := c.Exchanges[0]
	// The "API": the clean upstream stream.
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(x.Upstream.Body())
	}))
	defer api.Close()
	// The proxy under test: forwards to its upstream base URL (seam's back
	// listener), ignores what comes back, and answers with the corrupted
	// stream the incident's client received.
	var back atomic.Value // the address of seam's back listener, once known
	proxy := httptest.NewServer(corruptingProxy(&back, x.Client.Body()))
	defer proxy.Close()

	out := filepath.Join(t.TempDir(), "sandwich.ndjson")
	cmd, front, br := launchSeam(t, `listening on http://(\S+) → `, "record", "--upstream", api.URL, "--proxy", proxy.URL, "--listen", "127.0.0.1:0", "--back", "127.0.0.1:0", "-o", out)
	line, err := br.ReadString('\n')
	m := regexp.MustCompile(`listening on http://(\S+) → \S+ for the proxy under test`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("second banner %q: %v", line, err)
	}
	back.Store(m[1])
	go io.Copy(io.Discard, br)
	resp, err := http.Post("http://"+front+x.Request.URL, "application/json", strings.NewReader(string(x.Request.Body)))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()

	got, err := tape.ReadFile(out)
	if err != nil || len(got.Exchanges) != 1 {
		t.Fatalf("capture: %v, %d exchanges", err, len(got.Exchanges))
	}
	gx := got.Exchanges[0]
	if gx.UpstreamRequest == nil || !strings.Contains(string(gx.UpstreamRequest.Body), "writeToFile") {
		t.Errorf("the proxy's upstream request was not recorded: %+v", gx.UpstreamRequest)
	}
	if string(gx.Upstream.Body()) != string(x.Upstream.Body()) || string(gx.Client.Body()) != string(x.Client.Body()) {
		t.Fatalf("legs: upstream %d bytes (want %d), client %d bytes (want %d)",
			len(gx.Upstream.Body()), len(x.Upstream.Body()), len(gx.Client.Body()), len(x.Client.Body()))
	}
	if got.Header.Engine.Profile != "external" {
		t.Errorf("engine %q, want external", got.Header.Engine.Profile)
	}
	report, _ := seamCombinedOutput("inspect", out)
	if !strings.Contains(string(report), "xml.unclosed-closer") {
		t.Errorf("inspect of the sandwich capture:\n%s", report)
	}
	msg, _ := seamCombinedOutput("replay", out)
	if !strings.Contains(string(msg), "shaped by an external proxy") {
		t.Errorf("replay of a sandwich capture: %s", msg)
	}
}

// TestServeModes runs "seam serve" as a test suite would use it: the first
// run in --mode once records a conversation from the upstream (here another
// seam serve playing a fixture), the next run replays it with the upstream
// gone, byte for byte, and --mode new_episodes forwards only what it has not
// recorded.
func TestServeModes(t *testing.T) {
	fixture := filepath.Join(fixturesDir, "openai-chat-tools.ndjson")
	src, err := tape.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	req := src.Exchanges[0].Request
	up, upAddr := startSeam(t, `on http://(\S+)`, "serve", "--listen", "127.0.0.1:0", "--speed", "0", fixture)
	post := func(addr, body string) (int, string) {
		t.Helper()
		return postJSON(t, "http://"+addr+req.URL, body)
	}
	stop := func(cmd *exec.Cmd) {
		t.Helper()
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}

	cassette := filepath.Join(t.TempDir(), "chat.ndjson")
	first, addr := startSeam(t, `on http://(\S+)`, "serve", "--mode", "once", "--upstream", "http://"+upAddr, "--listen", "127.0.0.1:0", "-q", cassette)
	status, recorded := post(addr, string(req.Body))
	if status != 200 || recorded != string(src.Exchanges[0].Upstream.Body()) {
		t.Fatalf("first run: %d, %d bytes, want the upstream's %d", status, len(recorded), len(src.Exchanges[0].Upstream.Body()))
	}
	stop(first)
	stop(up) // the upstream is gone from here on

	second, addr := startSeam(t, `on http://(\S+)`, "serve", "--mode", "once", "--speed", "0", "--listen", "127.0.0.1:0", cassette)
	// Reordered keys and a different stream_options still match.
	var body map[string]any
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	body["stream_options"] = map[string]any{"include_usage": false}
	reordered, _ := json.Marshal(body)
	if status, replayed := post(addr, string(reordered)); status != 200 || replayed != recorded {
		t.Errorf("replay run: %d %q, want the recorded body", status, replayed)
	}
	if status, miss := post(addr, `{"model":"other","messages":[]}`); status != 404 || !strings.Contains(miss, "closest is exchange 1") {
		t.Errorf("a miss: %d %s", status, miss)
	}
	stop(second)

	// new_episodes: the recorded request replays; a new one is forwarded to
	// an upstream and recorded.
	newUp := blockingUpstream(t, 2)
	episodes := filepath.Join(t.TempDir(), "episodes.ndjson")
	third, addr := startSeam(t, `on http://(\S+)`, "serve", "--mode", "new_episodes", "--upstream", newUp.URL, "-o", episodes, "--speed", "0", "--listen", "127.0.0.1:0", "-q", cassette)
	if status, replayed := post(addr, string(req.Body)); status != 200 || replayed != recorded {
		t.Errorf("new_episodes, recorded request: %d, %d bytes", status, len(replayed))
	}
	resp, err := http.Post("http://"+addr+req.URL, "application/json", strings.NewReader(`{"model":"new","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	readEvents(t, resp.Body, 2)
	resp.Body.Close()
	stop(third)
	c, err := tape.ReadFile(episodes)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != 1 || !strings.Contains(string(c.Exchanges[0].Request.Body), `"model":"new"`) {
		t.Errorf("new_episodes recorded %d exchanges, want only the new request", len(c.Exchanges))
	}
}

// corruptingProxy is a proxy under test for sandwich tests: it forwards a
// request to its upstream (seam's back listener, at the address back
// holds once known), ignores what comes back, and answers with body, the
// corrupted stream a client received.
func corruptingProxy(back *atomic.Value, body []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, err := http.Post("http://"+back.Load().(string)+r.URL.Path, "application/json", r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(body)
	})
}
