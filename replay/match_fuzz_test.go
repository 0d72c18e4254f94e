package replay_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/tape"
)

// FuzzServeRequest sends any request body, to any path, to a Server of a
// recorded capture, as a client of seam serve does: matching parses the
// body (JSON, history, the closest exchange on a miss) and must never
// panic; the answer is the recorded exchange or a 404 naming the closest.
func FuzzServeRequest(f *testing.F) {
	c, err := fixtures.Load("openai-chat-tools.ndjson")
	if err != nil {
		f.Fatal(err)
	}
	for _, x := range c.Exchanges {
		f.Add(x.Request.URL, string(x.Request.Body))
	}
	f.Add("/v1/chat/completions", `{"model":"gpt-4o-2024-08-06","messages":[{"role":"user","content":[{"type":"text","text":"x"}]},1,null],"input":"x"}`)
	f.Add("/v1/responses", `{"input":[{"type":"message"}],"model":1e999}`)
	srv := replay.NewServer([]*tape.Capture{c}, replay.ServerOptions{Speed: 0})
	f.Fuzz(func(t *testing.T, path, body string) {
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \r\n\t") {
			path = "/" + strings.NewReplacer(" ", "", "\r", "", "\n", "", "\t", "").Replace(path)
		}
		req, err := http.NewRequest("POST", "http://seam"+path, strings.NewReader(body))
		if err != nil {
			return
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		if w.Code != http.StatusOK && w.Code != http.StatusNotFound {
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
	})
}
