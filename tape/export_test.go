package tape_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/tape"
)

func exportCapture() *tape.Capture {
	x := &tape.Exchange{Ex: 1,
		Request: &tape.Request{Ex: 1, T: 1e6, Method: "POST", URL: "/v1/chat/completions?model=x",
			Headers: tape.Headers{"authorization": {tape.Redacted}, "content-type": {"application/json"}, "content-length": {"20"}},
			Body:    []byte(`{"content":"it's"}`)},
	}
	x.Client.Response = &tape.Response{Ex: 1, Side: tape.Client, T: 5e6, Status: 200, Headers: tape.Headers{"content-type": {"text/event-stream"}}}
	x.Client.Chunks = []tape.Chunk{{Ex: 1, Side: tape.Client, T: 7e6, Data: []byte("data: [DONE]\n\n")}}
	x.Client.End = &tape.End{Ex: 1, Side: tape.Client, T: 9e6, Outcome: tape.Truncated}
	return &tape.Capture{Header: tape.Header{V: 1, Upstream: "https://api.openai.com", Started: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)}, Exchanges: []*tape.Exchange{x}}
}

func TestWriteHAR(t *testing.T) {
	var b bytes.Buffer
	if err := tape.WriteHAR(&b, exportCapture(), "test"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Log struct {
			Version string
			Entries []struct {
				StartedDateTime string
				Request         struct {
					URL      string
					PostData struct{ Text string }
				}
				Response struct {
					Status  int
					Content struct{ Text, MimeType string }
				}
				Timings struct{ Wait, Receive float64 }
				Comment string
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Log.Version != "1.2" || len(doc.Log.Entries) != 1 {
		t.Fatalf("HAR %s", b.Bytes())
	}
	e := doc.Log.Entries[0]
	if e.Request.URL != "https://api.openai.com/v1/chat/completions?model=x" || e.Request.PostData.Text != `{"content":"it's"}` ||
		e.Response.Status != 200 || e.Response.Content.Text != "data: [DONE]\n\n" || e.Response.Content.MimeType != "text/event-stream" ||
		e.Timings.Wait != 6 || e.Timings.Receive != 2 || e.StartedDateTime != "2026-11-22T09:00:00.001Z" || !strings.Contains(e.Comment, "truncated") {
		t.Errorf("entry %+v", e)
	}
}

// TestSandwichRequestLine: the upstream request of a sandwich recording
// round-trips and is gathered apart from the client's request.
func TestSandwichRequestLine(t *testing.T) {
	var b []byte
	b = tape.AppendHeader(b, tape.Header{V: 1, Engine: tape.Engine{Profile: "external"}})
	b = tape.AppendRequest(b, tape.Request{Ex: 1, Method: "POST", URL: "/v1/responses", Body: []byte(`{"input":"hi"}`)})
	b = tape.AppendRequest(b, tape.Request{Ex: 1, Side: tape.Upstream, Method: "POST", URL: "/v1/chat/completions", Body: []byte(`{"messages":[]}`)})
	if !bytes.Contains(b, []byte(`{"type":"request","ex":1,"side":"upstream",`)) {
		t.Fatalf("encoded:\n%s", b)
	}
	c, err := tape.Read(bytes.NewReader(b), "sandwich")
	if err != nil || len(c.Warnings) > 0 {
		t.Fatal(err, c.Warnings)
	}
	x := c.Exchanges[0]
	if x.Request == nil || x.Request.URL != "/v1/responses" || x.UpstreamRequest == nil || x.UpstreamRequest.URL != "/v1/chat/completions" {
		t.Fatalf("requests %+v / %+v", x.Request, x.UpstreamRequest)
	}
	bad := bytes.Replace(b, []byte(`"side":"upstream"`), []byte(`"side":"client"`), 1)
	if c, _ := tape.Read(bytes.NewReader(bad), "bad"); len(c.Warnings) == 0 {
		t.Error("a request with side client was accepted")
	}
}

// TestHARUsesRequestHost: in a forward-proxy recording the HAR entry's URL
// is the request's own scheme and host.
func TestHARUsesRequestHost(t *testing.T) {
	c := &tape.Capture{Header: tape.Header{V: 1}, Exchanges: []*tape.Exchange{{Ex: 1,
		Request: &tape.Request{Ex: 1, Method: "POST", Scheme: "https", Host: "api.anthropic.com", URL: "/v1/messages", Headers: tape.Headers{}}}}}
	var b strings.Builder
	if err := tape.WriteHAR(&b, c, "test"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"url": "https://api.anthropic.com/v1/messages"`) {
		t.Errorf("HAR:\n%s", b.String())
	}
}
