package tape_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
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

func TestWriteCurl(t *testing.T) {
	var b bytes.Buffer
	if err := tape.WriteCurl(&b, exportCapture().Exchanges[0], "https://api.openai.com/"); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		`curl -sS -N -X POST 'https://api.openai.com/v1/chat/completions?model=x'`,
		`-H "authorization: $AUTHORIZATION"`,
		`-H 'content-type: application/json'`,
		`--data-binary '{"content":"it'\''s"}'`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("curl command lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "content-length") {
		t.Errorf("curl command sets content-length itself")
	}
	// The command is valid shell.
	if sh, err := exec.LookPath("sh"); err == nil {
		if out, err := exec.Command(sh, "-n", "-c", got).CombinedOutput(); err != nil {
			t.Errorf("sh -n: %v %s", err, out)
		}
	}
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
