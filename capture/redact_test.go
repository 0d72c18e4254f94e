package capture_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// TestCanarySecretsNeverReachDisk sends canary secrets in every header and
// query position a key can travel in, and asserts that the upstream got them
// unchanged while no canary byte reaches the capture.
func TestCanarySecretsNeverReachDisk(t *testing.T) {
	const canary = "CANARY7f3a9"
	secretHeaders := map[string]string{
		"Authorization":       "Bearer sk-" + canary + "-auth",
		"X-Api-Key":           canary + "-xapikey",
		"Api-Key":             canary + "-apikey",
		"Cookie":              "session=" + canary + "-cookie",
		"Proxy-Authorization": "Basic " + canary + "-proxyauth",
		"X-Goog-Api-Key":      canary + "-goog",
	}
	query := "?key=" + canary + "-qkey&api_key=" + canary + "-qapikey&model=gpt-4o"

	var mu sync.Mutex
	got := http.Header{}
	var gotQuery string
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		got = req.Header.Clone()
		gotQuery = req.URL.RawQuery
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Set-Cookie", "upstream="+canary+"-setcookie")
		io.WriteString(w, "data: [DONE]\n\n")
	}), nil)

	req, _ := http.NewRequest("POST", r.front.URL+"/v1/chat/completions"+query, strings.NewReader(`{"model":"gpt-4o"}`))
	for k, v := range secretHeaders {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	c := r.finish()

	mu.Lock()
	for k, v := range secretHeaders {
		if got.Get(k) != v {
			t.Errorf("upstream got %s %q, want %q unchanged", k, got.Get(k), v)
		}
	}
	if gotQuery != strings.TrimPrefix(query, "?") {
		t.Errorf("upstream got query %q, want %q", gotQuery, query[1:])
	}
	mu.Unlock()
	if i := bytes.Index(r.buf.Bytes(), []byte(canary)); i >= 0 {
		line := bytes.Count(r.buf.Bytes()[:i], []byte("\n")) + 1
		t.Fatalf("canary secret on capture line %d:\n%s", line, r.buf.Bytes())
	}
	// The base64 form of a secret must not slip through either.
	for _, frag := range []string{"Q0FOQVJZ", "NBTkFSW", "DQU5BUl"} {
		if bytes.Contains(r.buf.Bytes(), []byte(frag)) {
			t.Fatalf("base64 of the canary in the capture")
		}
	}
	x := c.Exchanges[0]
	if !strings.Contains(x.Request.URL, "model=gpt-4o") {
		t.Errorf("non-secret query parameter lost: %q", x.Request.URL)
	}
	if v := x.Request.Headers["content-type"]; len(v) != 1 || v[0] != "application/json" {
		t.Errorf("allowlisted header content-type recorded as %v", v)
	}
	if v := x.Request.Headers["authorization"]; len(v) != 1 || v[0] != "[redacted]" {
		t.Errorf("authorization recorded as %v, want it present and redacted", v)
	}
}
