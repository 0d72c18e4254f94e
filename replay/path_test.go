package replay_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/tape"
)

// TestServerMatchesEscapedPath: a path recorded with escapes (Bedrock's
// model ids hold "%3A") is matched by a request that sends it escaped or
// not.
func TestServerMatchesEscapedPath(t *testing.T) {
	t.Parallel()
	x := &tape.Exchange{Ex: 1, Request: &tape.Request{Ex: 1, Method: "POST", URL: "/model/anthropic.claude-3-sonnet-20240229-v1%3A0/converse-stream", Body: []byte(`{}`)}}
	x.Upstream.Response = &tape.Response{Ex: 1, Side: tape.Upstream, Status: 200, Headers: tape.Headers{"content-type": {"application/vnd.amazon.eventstream"}}}
	srv := httptest.NewServer(replay.NewServer([]*tape.Capture{{Exchanges: []*tape.Exchange{x}}}, replay.ServerOptions{}))
	defer srv.Close()
	for _, path := range []string{"/model/anthropic.claude-3-sonnet-20240229-v1%3A0/converse-stream", "/model/anthropic.claude-3-sonnet-20240229-v1:0/converse-stream"} {
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/vnd.amazon.eventstream" {
			t.Errorf("%s: %d %q", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
}
