package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/seam-dev/seam/otlpexport"
	"github.com/seam-dev/seam/tape"
)

// TestOTLPSandwich exports a sandwich recording (seam record --proxy)
// whose proxy under test corrupts the stream: the span says the client
// got another message than the upstream sent, with the two sides'
// hashes, and carries the findings inspect reports as events.
func TestOTLPSandwich(t *testing.T) {
	c, err := tape.ReadFile(filepath.Join(fixturesDir, "incident-holdback-off.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	x := c.Exchanges[0]
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(x.Upstream.Body())
	}))
	defer api.Close()
	var back atomic.Value
	proxy := httptest.NewServer(corruptingProxy(&back, x.Client.Body()))
	defer proxy.Close()
	recv := newOTLPRecv(t)
	out := filepath.Join(t.TempDir(), "sandwich.ndjson")
	cmd, front, br := launchSeam(t, `listening on http://(\S+) → `, "record", "--upstream", api.URL, "--proxy", proxy.URL,
		"--listen", "127.0.0.1:0", "--back", "127.0.0.1:0", "-o", out, "-q", "--otlp", recv.URL())
	line, err := br.ReadString('\n')
	m := regexp.MustCompile(`listening on http://(\S+) → \S+ for the proxy under test`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("second banner %q: %v", line, err)
	}
	back.Store(m[1])
	replayRequest(t, "http://"+front, x.Request)
	stopRecording(t, cmd, br)

	spans := recv.Spans()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1", len(spans))
	}
	s := spans[0]
	rep := inspectOTLP(t, out)
	if got := s.Attrs["seam.sides.verdict"]; got != otlpexport.VerdictChanged {
		t.Errorf("verdict %v, want %s", got, otlpexport.VerdictChanged)
	}
	if s.Attrs["seam.upstream.sha256"] == s.Attrs["seam.client.sha256"] || s.Attrs["seam.client.sha256"] == nil {
		t.Errorf("side hashes %v and %v", s.Attrs["seam.upstream.sha256"], s.Attrs["seam.client.sha256"])
	}
	fs := rep.Exchanges[0].Findings
	if len(fs) == 0 || len(s.Events) != len(fs) {
		t.Fatalf("%d events for %d findings", len(s.Events), len(fs))
	}
	for i, f := range fs {
		if s.Events[i].Attrs["seam.finding.id"] != f.ID || s.Events[i].Attrs["seam.finding.message"] != f.Message {
			t.Errorf("event %d: %v, want finding %s %q", i, s.Events[i].Attrs, f.ID, f.Message)
		}
	}
}

// TestOTLPServe exports what seam serve records: a request no capture
// answers goes upstream (--mode new_episodes), is recorded, and its span
// names the recording.
func TestOTLPServe(t *testing.T) {
	events := downStream(3)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, strings.Join(events, ""))
	}))
	defer up.Close()
	recv := newOTLPRecv(t)
	out := filepath.Join(t.TempDir(), "served.ndjson")
	cmd, addr, rest := launchSeam(t, `on http://(\S+)`, "serve", "--mode", "new_episodes", "--upstream", up.URL, "-o", out, "-q",
		"--listen", "127.0.0.1:0", "--otlp", recv.URL(), filepath.Join(fixturesDir, "openai-chat-tools.ndjson"))
	resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":"not in the capture"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	cmd.Process.Signal(os.Interrupt)
	said, _ := io.ReadAll(rest)
	cmd.Wait()
	spans := recv.Spans()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want 1\n%s", len(spans), said)
	}
	s := spans[0]
	if s.Name != "chat gpt-4o" || s.Attrs["seam.capture.uri"] != otlpexport.FileURI(out) || s.Attrs["gen_ai.response.finish_reasons"] == nil {
		t.Errorf("span %q %v", s.Name, s.Attrs)
	}
	if !strings.Contains(string(said), "otlp: 1 span sent") {
		t.Errorf("seam serve said:\n%s", said)
	}
}
