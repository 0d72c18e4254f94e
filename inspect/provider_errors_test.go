package inspect

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dev/seam/tape"
)

// failedExchange is one recorded response passed through unchanged: the
// same status, headers and body on both sides.
func failedExchange(url string, status int, h tape.Headers, body []byte) *tape.Capture {
	x := &tape.Exchange{Ex: 1, Request: &tape.Request{Ex: 1, Method: "POST", URL: url, Body: []byte(`{"model":"m","stream":true}`)}}
	for _, s := range []tape.Side{tape.Upstream, tape.Client} {
		sd := x.Side(s)
		sd.Response = &tape.Response{Ex: 1, Side: s, T: 1e6, Status: status, Headers: h}
		sd.Chunks = chunksOf(s, body, 0)
		sd.End = &tape.End{Ex: 1, Side: s, T: 2e6, Outcome: tape.Complete, Bytes: int64(len(body))}
	}
	return &tape.Capture{Name: "test", Header: tape.Header{V: tape.Version, Engine: tape.Engine{Profile: "passthrough"}}, Exchanges: []*tape.Exchange{x}}
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../fixtures", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestProviderErrorsSaid: what a provider said when it failed reaches the
// message's error, every client's error, the exchange's error in --json,
// the http.status finding and the verdict line, which names the HTTP
// failure instead of "complete": real error bodies of Bedrock (400 and
// 403, named by their x-amzn-ErrorType as the AWS SDKs name the
// exception), Anthropic, OpenRouter and Gemini (its error object sent
// under text/event-stream, as Gemini answers a failed streaming call),
// and Gemini's in-band error after two chunks of a 200 stream.
func TestProviderErrorsSaid(t *testing.T) {
	t.Parallel()
	json400 := tape.Headers{"content-type": {"application/json"}}
	gemMid := readFixture(t, "providers/gemini/gemini-fb-vertexai-error-mid-stream.sse")
	gemErr := gemMid[bytes.IndexByte(gemMid, '{'):]
	gemErr = gemErr[bytes.Index(gemErr, []byte("\n\n{"))+2:]
	cases := []struct {
		name, url string
		status    int
		h         tape.Headers
		body      []byte
		want      string // the provider's message, in full or its start
		word      string // how the verdict says the exchange ended
	}{
		{"bedrock 400", "/model/does-not-exist/invoke-with-response-stream", 400,
			tape.Headers{"content-type": {"application/json"}, "x-amzn-errortype": {"ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"}},
			readFixture(t, "round3/bedrock-error-400-invalid-model-id.body.json"),
			"ValidationException: The provided model identifier is invalid.", "http 400"},
		{"bedrock 403", "/model/mistral.mistral-7b-instruct-v0%3A2/invoke-with-response-stream", 403,
			tape.Headers{"content-type": {"application/json"}, "x-amzn-errortype": {"UnrecognizedClientException:http://internal.amazon.com/coral/com.amazon.coral.service/"}},
			readFixture(t, "round3/bedrock-error-403-invalid-token-mistral.body.json"),
			"UnrecognizedClientException: The security token included in the request is invalid.", "http 403"},
		{"anthropic 400", "/v1/messages", 400, json400,
			readFixture(t, "round3/activeagent-anthropic-400-prefill.1.json"),
			"invalid_request_error: This model does not support assistant message prefill. The conversation must end with a user message.", "http 400"},
		{"openrouter 429", "/api/v1/chat/completions", 429, json400,
			readFixture(t, "providers/openai-compatible/openrouter-langchaingo-429-after-stream.json"),
			"429: Rate limit exceeded: limit_rpm/meta-llama/llama-3.2-3b-instruct/", "http 429"},
		{"gemini error under text/event-stream", "/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse", 400,
			tape.Headers{"content-type": {"text/event-stream"}}, gemErr,
			"499 CANCELLED The operation was cancelled.", "http 400"},
		{"gemini in-band error", "/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse", 200,
			tape.Headers{"content-type": {"text/event-stream"}}, gemMid,
			"499 CANCELLED The operation was cancelled.", "complete"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := Inspect(failedExchange(tc.url, tc.status, tc.h, tc.body), Options{})
			x := r.Exchanges[0]
			if !strings.HasPrefix(x.Error, tc.want) {
				t.Errorf("exchange error %q, want %q", x.Error, tc.want)
			}
			for _, s := range x.Sides {
				if s.Message.Error != x.Error {
					t.Errorf("%s message error %q, want %q", s.Side, s.Message.Error, x.Error)
				}
			}
			for _, c := range x.Clients {
				if !strings.Contains(c.Error, tc.want) {
					t.Errorf("client %s error %q, want it to say %q", c.Client, c.Error, tc.want)
				}
			}
			said := false
			for _, f := range x.Findings {
				if f.ID == "framing.mismatch" {
					t.Errorf("an error body is no framing mismatch: %s", f.Message)
				}
				if (f.ID == "http.status" || f.ID == "stream.error-event") && strings.Contains(f.Message, tc.want[:min(60, len(tc.want))]) {
					said = true
				}
			}
			if !said {
				t.Errorf("no http.status or stream.error-event finding says %q: %s", tc.want, findingIDs(x.Findings))
			}

			var text bytes.Buffer
			if err := WriteText(&text, r, false); err != nil {
				t.Fatal(err)
			}
			verdict, _, _ := strings.Cut(text.String(), "\n   POST")
			verdict = strings.Join(strings.Fields(verdict), " ")
			if !strings.Contains(verdict, " · "+tc.word+" · error ") || !strings.Contains(verdict, `said "`+tc.want[:40]) {
				t.Errorf("verdict %q: want %q and what the provider said", verdict, tc.word)
			}
			if tc.status >= 400 && (strings.Contains(verdict, "complete") || strings.Contains(verdict, " · status ")) {
				t.Errorf("verdict %q names the outcome or status of a failed exchange", verdict)
			}

			var js bytes.Buffer
			if err := WriteJSON(&js, r); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Exchanges []struct{ Error string } `json:"exchanges"`
			}
			if err := json.Unmarshal(js.Bytes(), &doc); err != nil || doc.Exchanges[0].Error != x.Error {
				t.Errorf("--json exchange error %+v (%v), want %q", doc.Exchanges, err, x.Error)
			}
		})
	}
}

// TestErrorFieldLine: a server that reports a failure in an "error:" SSE
// field line, which the spec (and so every SSE client) ignores, has its
// text shown: a stream.error-event with the text, the message's error and
// the verdict, while no emulated client claims to have seen it; another
// field no client reads is an sse.unknown-field with its text. The stream
// is a real Mistral recording cut after its third event, as the server
// failed.
func TestErrorFieldLine(t *testing.T) {
	t.Parallel()
	real := readFixture(t, "providers/mistral/mistral-stream-text.sse")
	events := sseEvents(real)
	for _, line := range []string{
		"error: failed to decode the batch, n_batch = 1, ret = -1",
		`error: {"code":500,"message":"failed to decode the batch, n_batch = 1, ret = -1","type":"server_error"}`,
	} {
		body := string(bytes.Join(events[:3], nil)) + "x-request-id: 7f3a\n\n" + line + "\n\n"
		c := failedExchange("/v1/chat/completions", 200, tape.Headers{"content-type": {"text/event-stream"}}, []byte(body))
		for _, s := range []tape.Side{tape.Upstream, tape.Client} {
			c.Exchanges[0].Side(s).End.Outcome = tape.Truncated
		}
		r := Inspect(c, Options{})
		x := r.Exchanges[0]
		want := "server_error: failed to decode the batch, n_batch = 1, ret = -1"
		if !strings.HasPrefix(line, "error: {") {
			want = "failed to decode the batch, n_batch = 1, ret = -1"
		}
		if x.Error != want || x.Sides[0].Message.Error != want {
			t.Errorf("%s: exchange error %q, upstream message error %q, want %q", line, x.Error, x.Sides[0].Message.Error, want)
		}
		for _, cl := range x.Clients {
			if strings.Contains(cl.Error, "decode") {
				t.Errorf("%s: client %s reports %q, which no SSE client hears", line, cl.Client, cl.Error)
			}
		}
		var errLine, other *Finding
		for i, f := range x.Findings {
			switch {
			case f.ID == "stream.error-event" && f.Pointer.Side == tape.Client:
				errLine = &x.Findings[i]
			case f.ID == "sse.unknown-field" && f.Pointer.Side == tape.Client:
				other = &x.Findings[i]
			}
		}
		if errLine == nil || !strings.Contains(errLine.Message, want) || errLine.Evidence != line || errLine.Pointer.Off != int64(len(body)-len(line)-2) {
			t.Errorf("%s: error finding %+v", line, errLine)
		}
		if other == nil || !strings.Contains(other.Message, `"x-request-id"`) || !strings.Contains(other.Message, "7f3a") {
			t.Errorf("%s: unknown-field finding %+v", line, other)
		}
		var text bytes.Buffer
		if err := WriteText(&text, r, false); err != nil {
			t.Fatal(err)
		}
		if first, _, _ := strings.Cut(text.String(), "POST"); !strings.Contains(strings.Join(strings.Fields(first), " "), "error stream.error-event at client chunk 0 · said \""+want[:30]) {
			t.Errorf("%s: verdict %q", line, first)
		}
	}
}
