package replay_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/tape"
)

func TestServerPlaysMatchedExchange(t *testing.T) {
	c, err := fixtures.Load("openai-responses-tool-then-text.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(replay.NewServer([]*tape.Capture{c}, replay.ServerOptions{}))
	defer srv.Close()
	for _, x := range c.Exchanges {
		// Whitespace in the JSON body does not matter to matching.
		body := strings.Replace(string(x.Request.Body), `"model":`, `"model" : `, 1)
		resp, err := http.Post(srv.URL+x.Request.URL, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !bytes.Equal(got, x.Upstream.Body()) {
			t.Errorf("exchange %d: served %d bytes, recorded %d", x.Ex, len(got), len(x.Upstream.Body()))
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
			t.Errorf("content-type %q", ct)
		}
	}
}

func TestServerMissNamesClosest(t *testing.T) {
	c, _ := fixtures.Load("openai-chat-tools.ndjson")
	srv := httptest.NewServer(replay.NewServer([]*tape.Capture{c}, replay.ServerOptions{}))
	defer srv.Close()
	for path, want := range map[string]string{
		"/v1/chat/completions": "exchange 1 has the same endpoint but another request body",
		"/v1/messages":         "no exchange has that endpoint; exchange 1 is POST /v1/chat/completions",
	} {
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(`{"model":"other"}`))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 404 || !strings.Contains(string(got), want) {
			t.Errorf("%s: %d %s, want 404 saying %q", path, resp.StatusCode, got, want)
		}
	}
}
