package convert

import (
	"testing"

	"github.com/seam-dev/seam/tape"
)

// TestGiveRequest: only the exchanges recorded without a request get the
// one given; a recorded request is kept as it is.
func TestGiveRequest(t *testing.T) {
	kept := &tape.Request{Ex: 2, Method: "GET", URL: "/v1/models"}
	c := &tape.Capture{Exchanges: []*tape.Exchange{{Ex: 1}, {Ex: 2, Request: kept}}}
	GiveRequest(c, "POST", "/api/chat", []byte(`{"model":"m"}`))
	r := c.Exchanges[0].Request
	if r == nil || r.Ex != 1 || r.Method != "POST" || r.URL != "/api/chat" || string(r.Body) != `{"model":"m"}` || r.Headers == nil {
		t.Errorf("given %+v", r)
	}
	if c.Exchanges[1].Request != kept {
		t.Errorf("a recorded request was replaced: %+v", c.Exchanges[1].Request)
	}
}
