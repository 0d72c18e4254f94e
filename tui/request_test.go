package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/tape"
)

// TestRequestTabSandwich: in a sandwich recording the Request tab says
// what the proxy under test changed on the request's way upstream, and the
// history-rewrite finding stands inline.
func TestRequestTabSandwich(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sandwich.ndjson")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := tape.NewWriter(f, tape.WriterOptions{})
	w.Header(tape.Header{V: tape.Version, Seam: "test", ID: "1", Started: time.Unix(0, 0).UTC(), Upstream: "http://api", Engine: tape.Engine{Profile: "external"}})
	client := `{"model":"gpt-4o","stream":true,"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"list my files"}]}`
	upstream := `{"model":"gpt-4o-mini","stream":true,"messages":[{"role":"user","content":"list my files"}]}`
	x := w.Exchange(1)
	x.Request(tape.Request{T: 1, Method: "POST", URL: "/v1/chat/completions", Body: []byte(client)})
	x.Request(tape.Request{Side: tape.Upstream, T: 2, Method: "POST", URL: "/v1/chat/completions", Body: []byte(upstream)})
	body := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a.md\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	for _, s := range []tape.Side{tape.Upstream, tape.Client} {
		x.Response(tape.Response{Side: s, T: 3, Status: 200, Headers: tape.Headers{"content-type": {"text/event-stream"}}})
		x.Chunk(s, 4, []byte(body))
		x.End(s, 5, tape.Complete, "")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	m := newTestModel(t, 140, 60, path)
	press(t, m, "enter", "4")
	s := screen(m)
	for _, want := range []string{
		"req.history-rewritten",
		"━━ client's request vs sent upstream by the proxy under test",
		"model: gpt-4o → gpt-4o-mini",
		"messages: 2 from the client, 1 upstream; the history was rewritten",
		`- client [0] system dropped: "be brief"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the Request tab lacks %q:\n%s", want, s)
		}
	}
}
