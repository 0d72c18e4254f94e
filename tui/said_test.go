package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dev/seam/tape"
)

// TestProviderSaid: an exchange Bedrock failed with a 400 (its real error
// body, named by x-amzn-ErrorType as the AWS SDKs name the exception) is
// "failed" in the list and the detail's title, not "complete", and what
// the provider said shows in the list's top finding, at the top of the
// Diff tab and in the Findings tab; a hostile message is drawn with
// package visible's markers.
func TestProviderSaid(t *testing.T) {
	t.Parallel()
	body, err := os.ReadFile("../fixtures/round3/bedrock-error-400-invalid-model-id.body.json")
	if err != nil {
		t.Fatal(err)
	}
	b := tape.AppendHeader(nil, tape.Header{V: tape.Version, Seam: "test", ID: "said", Upstream: "https://bedrock-runtime.us-east-1.amazonaws.com", Engine: tape.Engine{Profile: "passthrough"}})
	for ex, x := range []struct {
		h    tape.Headers
		body []byte
	}{
		{tape.Headers{"content-type": {"application/json"}, "x-amzn-errortype": {"ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"}}, body},
		{tape.Headers{"content-type": {"application/json"}}, []byte(`{"message":"bad \u001b]52;c;aGk=\u0007 token"}`)},
	} {
		ex++
		b = tape.AppendRequest(b, tape.Request{Ex: ex, Method: "POST", URL: "/model/does-not-exist/invoke-with-response-stream", Headers: tape.Headers{}, Body: []byte(`{"prompt":"hi"}`)})
		for _, s := range []tape.Side{tape.Upstream, tape.Client} {
			b = tape.AppendResponse(b, tape.Response{Ex: ex, Side: s, T: 1e6, Status: 400, Headers: x.h})
			b = tape.AppendChunk(b, tape.Chunk{Ex: ex, Side: s, T: 2e6, Data: x.body})
			b = tape.AppendEnd(b, tape.End{Ex: ex, Side: s, T: 3e6, Outcome: tape.Complete, Bytes: int64(len(x.body))})
		}
	}
	path := filepath.Join(t.TempDir(), "said.ndjson")
	writeCapture(t, path, b)
	m := newTestModel(t, 220, 30, path)
	said := `"ValidationException: The provided model identifier is invalid."`
	s := screen(m)
	row := s[strings.Index(s, "▸ 1"):]
	row, _, _ = strings.Cut(row, "\n")
	if !strings.Contains(row, " 400 failed ") || strings.Contains(row, "complete") || !strings.Contains(row, "http.status "+said) {
		t.Errorf("list row %q: want 400 failed and %s", row, said)
	}
	if !strings.Contains(s, `"bad ␛]52;c;aGk=␇ token"`) {
		t.Errorf("the hostile message is not drawn with markers:\n%s", s)
	}
	press(t, m, "enter")
	s = screen(m)
	if title, _, _ := strings.Cut(s, "\n"); !strings.Contains(title, "400 failed") {
		t.Errorf("detail title %q", title)
	}
	if !strings.Contains(s, "━━ the provider said  ValidationException: The provided model identifier is invalid.") {
		t.Errorf("the Diff tab does not say what the provider said:\n%s", s)
	}
	press(t, m, "3")
	if s = screen(m); !strings.Contains(s, "HTTP 400 on the client side: ValidationException") {
		t.Errorf("the Findings tab does not say what the provider said:\n%s", s)
	}
}
