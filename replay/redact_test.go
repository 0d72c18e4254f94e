package replay_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/tape"
)

// TestServerMatchesRedactedRecording: seam record stores a body's secret
// fields (and what --redact names) as "[redacted]"; a client replaying the
// conversation sends the real values, and still matches the recording when
// serve redacts alike. A recording made before redaction matches too.
func TestServerMatchesRedactedRecording(t *testing.T) {
	t.Parallel()
	red, err := tape.ParseRedaction([]string{"json:metadata.owner"})
	if err != nil {
		t.Fatal(err)
	}
	live := `{"model":"m","api_key":"sk-live-0123456789","metadata":{"owner":"alice"},"messages":[{"role":"user","content":"hi"}]}`
	stored, _ := red.Body([]byte(live), "application/json")
	if strings.Contains(string(stored), "sk-live") || strings.Contains(string(stored), "alice") {
		t.Fatalf("stored %s", stored)
	}
	for name, body := range map[string][]byte{"redacted": stored, "not redacted": []byte(live)} {
		x := &tape.Exchange{Ex: 1, Request: &tape.Request{Ex: 1, Method: "POST", URL: "/v1/chat/completions", Headers: tape.Headers{"content-type": {"application/json"}}, Body: body}}
		x.Upstream.Response = &tape.Response{Ex: 1, Side: tape.Upstream, Status: 200, Headers: tape.Headers{"content-type": {"text/event-stream"}}}
		x.Upstream.Chunks = []tape.Chunk{{Ex: 1, Side: tape.Upstream, Data: []byte("data: [DONE]\n\n")}}
		srv := httptest.NewServer(replay.NewServer([]*tape.Capture{{Exchanges: []*tape.Exchange{x}}}, replay.ServerOptions{Redaction: red}))
		resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(strings.Replace(live, "sk-live-0123456789", "sk-other-key-987654", 1)))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		srv.Close()
		if resp.StatusCode != 200 || string(got) != "data: [DONE]\n\n" {
			t.Errorf("%s recording: %d %s", name, resp.StatusCode, got)
		}
	}
}
