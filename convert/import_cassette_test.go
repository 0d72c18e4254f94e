package convert

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// importDir holds the cassettes import is tested on (fixtures/README.md
// says where each comes from).
const importDir = "../fixtures/import"

func readImportFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(importDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// generatedExchanges are the exchanges the cassettes written by go-vcr
// v1–v4 and VCR.py hold, from fixtures/import/gen/exchanges.json.
type generatedExchange struct {
	Method, URL, Request, Response string
	ContentType                    string `json:"content_type"`
}

func generatedExchanges(t *testing.T) []generatedExchange {
	var exs []generatedExchange
	if err := json.Unmarshal(readImportFixture(t, "gen/exchanges.json"), &exs); err != nil {
		t.Fatal(err)
	}
	return exs
}

// TestImportLibraryCassettes imports the cassettes each go-vcr major
// version and VCR.py wrote of the same three real exchanges (OpenAI Chat
// and Anthropic SSE, a binary Bedrock eventstream) and checks each
// exchange's method, URL, request body and response body byte for byte,
// its status and content type, that the credential the client sent is
// redacted, and that durations are kept where the library records them.
func TestImportLibraryCassettes(t *testing.T) {
	t.Parallel()
	exs := generatedExchanges(t)
	for _, c := range []struct {
		file, format string
		timing       string
	}{
		{"go-vcr-v1.yaml", "go-vcr cassette v1", tape.TimingNone},
		{"go-vcr-v2.yaml", "go-vcr cassette v1", tape.TimingPartial},
		{"go-vcr-v3.yaml", "go-vcr cassette v2", tape.TimingPartial},
		{"go-vcr-v4.yaml", "go-vcr cassette v2", tape.TimingPartial},
		{"vcrpy.yaml", "vcr.py cassette", tape.TimingNone},
	} {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			capt, err := Import(bytes.NewReader(readImportFixture(t, c.file)), c.file)
			if err != nil {
				t.Fatal(err)
			}
			h := capt.Header
			if h.Imported == nil || h.Imported.Format != c.format || h.Imported.Timing != c.timing || h.Imported.File != c.file {
				t.Errorf("imported = %+v, want format %q timing %q", h.Imported, c.format, c.timing)
			}
			if !h.Started.IsZero() {
				t.Errorf("started %v: cassettes record no date", h.Started)
			}
			// Three hosts: no single upstream, each request names its own.
			if h.Upstream != "" || h.Engine.Profile != "passthrough" {
				t.Errorf("upstream %q engine %+v", h.Upstream, h.Engine)
			}
			if len(capt.Exchanges) != len(exs) {
				t.Fatalf("%d exchanges, want %d", len(capt.Exchanges), len(exs))
			}
			for i, want := range exs {
				x := capt.Exchanges[i]
				host, path, _ := strings.Cut(strings.TrimPrefix(want.URL, "https://"), "/")
				if x.Request == nil || x.Request.Method != want.Method || x.Request.URL != "/"+path || x.Request.Scheme != "https" || x.Request.Host != host {
					t.Fatalf("exchange %d: request %+v, want %s https://%s/%s", x.Ex, x.Request, want.Method, host, path)
				}
				if string(x.Request.Body) != want.Request {
					t.Errorf("exchange %d: request body differs:\n got %q\nwant %q", x.Ex, x.Request.Body, want.Request)
				}
				if got := x.Request.Headers["authorization"]; len(got) != 1 || got[0] != tape.Redacted {
					t.Errorf("exchange %d: authorization %q reached the capture", x.Ex, got)
				}
				body := readImportFixture(t, filepath.Join("..", want.Response))
				if got := x.Upstream.Body(); !bytes.Equal(got, body) {
					t.Errorf("exchange %d: response body differs from %s (%d vs %d bytes)", x.Ex, want.Response, len(got), len(body))
				}
				r := x.Upstream.Response
				if r.Status != 200 || r.Headers["content-type"][0] != want.ContentType || r.Headers["x-request-id"][0] != "req_fixture" {
					t.Errorf("exchange %d: response %d %v", x.Ex, r.Status, r.Headers)
				}
				end := x.Upstream.End
				if end.Outcome != tape.Complete || end.Bytes != int64(len(body)) {
					t.Errorf("exchange %d: end %+v", x.Ex, end)
				}
				if (end.T > 0) != (c.timing == tape.TimingPartial) {
					t.Errorf("exchange %d: end t %d with timing %s", x.Ex, end.T, c.timing)
				}
			}
			// The SSE exchanges are split per event and assemble.
			if n := len(capt.Exchanges[0].Upstream.Chunks); n < 10 {
				t.Errorf("%d chunks for the chat stream, want one per event", n)
			}
			r := inspect.Inspect(capt, inspect.Options{})
			if got := r.Exchanges[0].Sides[0].Message.Choices[0].ToolCalls; len(got) != 2 || got[0].Name != "GetWeatherArgs" {
				t.Errorf("chat tool calls = %+v", got)
			}
			if got := r.Exchanges[1].Sides[0].Message.Choices[0].ToolCalls; len(got) != 1 || got[0].Name != "get_weather" {
				t.Errorf("anthropic tool calls = %+v", got)
			}
		})
	}
}

// TestImportRealCassettes imports VCR.py cassettes recorded by other
// projects and compares each body with the one extracted by PyYAML: a
// multi-line double-quoted string with \r\n and \" escapes (Gemini),
// folded escapes with "\ " (Ollama), a multi-line single-quoted string with
// ” (Mistral, whose URI ends in a #fragment), and a !!binary body and
// !!binary header values (Bedrock).
func TestImportRealCassettes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file, body, url, model string
		// ct is the response content type the cassette kept ("": none).
		ct string
	}{
		{"gemini-openinference-sse-parallel-function-calls.yaml", "gemini-openinference-sse-parallel-function-calls.sse",
			"/v1beta/models/gemini-3.5-flash:streamGenerateContent?alt=sse", "", ""},
		{"ollama-openinference-chat-stream-thinking.yaml", "ollama-openinference-chat-stream-thinking.ndjson",
			"/api/chat", "qwen3.6:latest", ""},
		{"mistral-stream-text.yaml", "mistral-stream-text.sse", "/v1/chat/completions", "mistral-tiny", "text/event-stream"},
		{"bedrock-converse-stream-titan-guardrail.yaml", "bedrock-converse-stream-titan-guardrail.eventstream",
			"/model/amazon.titan-text-express-v1/converse-stream", "", "application/vnd.amazon.eventstream"},
	} {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			capt, err := Import(bytes.NewReader(readImportFixture(t, c.file)), c.file)
			if err != nil {
				t.Fatal(err)
			}
			if len(capt.Exchanges) != 1 {
				t.Fatalf("%d exchanges", len(capt.Exchanges))
			}
			x := capt.Exchanges[0]
			if x.Request.Method != "POST" || x.Request.URL != c.url {
				t.Errorf("request %s %s, want POST %s", x.Request.Method, x.Request.URL, c.url)
			}
			if !json.Valid(x.Request.Body) || gjson.GetBytes(x.Request.Body, "model").String() != c.model {
				t.Errorf("request body %q", x.Request.Body)
			}
			want := readImportFixture(t, c.body)
			if got := x.Upstream.Body(); !bytes.Equal(got, want) {
				t.Errorf("body differs from %s (%d vs %d bytes)\n got %q", c.body, len(got), len(want), excerpt.Clip(string(got), 300))
			}
			// No header is invented: a cassette that kept none has none.
			ct := x.Upstream.Response.Headers["content-type"]
			if c.ct == "" && len(ct) != 0 || c.ct != "" && (len(ct) == 0 || !strings.HasPrefix(ct[0], c.ct)) {
				t.Errorf("content-type %q, want %q", ct, c.ct)
			}
		})
	}
	// The Bedrock request's !!binary header values decode to their text.
	capt, err := Import(bytes.NewReader(readImportFixture(t, "bedrock-converse-stream-titan-guardrail.yaml")), "b")
	if err != nil {
		t.Fatal(err)
	}
	if got := capt.Exchanges[0].Request.Headers["content-type"]; len(got) != 1 || got[0] != "application/json" {
		t.Errorf("binary header value = %q", got)
	}
}

// TestImportParsedBodyExact: pydantic-ai's parsed_body becomes the request
// body as JSON with the cassette's key order, integer digits and number
// text, and strings escaped as JSON.
func TestImportParsedBodyExact(t *testing.T) {
	t.Parallel()
	cassette := `interactions:
- request:
    headers: {}
    method: POST
    parsed_body:
      zeta: 1
      alpha: 12345678901234567890
      temperature: 1.0
      tiny: 1.0e-05
      hex: 0x1F
      nothing: null
      flag: true
      text: "tab\there \u00e9 \"q\" </tag>"
      list:
      - a
      - 2
      empty: {}
      none: []
    uri: https://api.openai.com/v1/responses
  response:
    body:
      string: ''
    headers: {}
    status:
      code: 200
      message: OK
version: 1
`
	capt, err := Import(strings.NewReader(cassette), "p.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"zeta":1,"alpha":12345678901234567890,"temperature":1.0,"tiny":1.0e-05,"hex":31,"nothing":null,"flag":true,"text":"tab\there é \"q\" </tag>","list":["a",2],"empty":{},"none":[]}`
	if got := string(capt.Exchanges[0].Request.Body); got != want {
		t.Errorf("parsed_body as JSON:\n got %s\nwant %s", got, want)
	}
}

// TestImportCassetteJSON: a cassette written as JSON (VCR.py's json
// serializer) imports like its YAML form.
func TestImportCassetteJSON(t *testing.T) {
	t.Parallel()
	body := string(readTestdata(t, "openai-chat-refusal.sse"))
	doc, _ := json.Marshal(map[string]any{"version": 1, "interactions": []any{map[string]any{
		"request":  map[string]any{"body": `{"model":"gpt-4o"}`, "headers": map[string]any{"Content-Type": []string{"application/json"}}, "method": "POST", "uri": "https://api.openai.com/v1/chat/completions"},
		"response": map[string]any{"body": map[string]any{"string": body}, "headers": map[string]any{"Content-Type": []string{"text/event-stream"}}, "status": map[string]any{"code": 200, "message": "OK"}},
	}}})
	capt, err := Import(bytes.NewReader(doc), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	x := capt.Exchanges[0]
	if string(x.Upstream.Body()) != body || string(x.Request.Body) != `{"model":"gpt-4o"}` || capt.Header.Imported.Format != "vcr.py cassette" {
		t.Errorf("request %q, %d body bytes, format %q", x.Request.Body, len(x.Upstream.Body()), capt.Header.Imported.Format)
	}
}

// TestImportRefusesGarbage: anything that is not a recording is an
// *ImportError naming the file and what is accepted, never an invented
// exchange.
func TestImportRefusesGarbage(t *testing.T) {
	t.Parallel()
	random := make([]byte, 512)
	for i := range random {
		random[i] = byte(i*131 + i>>3)
	}
	for _, c := range []struct {
		name, in, reason string
	}{
		{"empty", "", "empty file"},
		{"blank", " \n\r\n\t\n", "empty file"},
		{"random", string(random), "binary data"},
		{"text", "hello world\nsecond line\n", `unrecognised content starting "hello world"`},
		{"pretty json", "{\n  \"id\": 1\n}\n", "a JSON document, but not a HAR"},
		{"jsonl with junk", "{\"a\":1}\n{\"b\":\n", "not JSON (JSONL wants one JSON value per line)"},
		{"yaml not a cassette", "name: x\nitems:\n- 1\n", "unrecognised content"},
		{"broken cassette", "interactions:\n- request: [\n", "a YAML cassette that does not parse"},
		{"cassette without requests", "interactions:\n- response: {}\n", "interaction 1 has no request mapping"},
		{"cassette of neither family", "interactions:\n- request: {path: /x}\n  response: {}\n", "neither url (go-vcr) nor uri (VCR.py)"},
		{"empty cassette", "interactions: []\nversion: 1\n", "cassette with no exchanges"},
		{"har without entries", `{"log":{"entries":[]}}`, "har with no exchanges"},
		{"an empty object", "{}\n", "one JSON value that is no provider payload"},
		{"an unknown object", `{"id": 1, "name": "x"}`, "one JSON value that is no provider payload"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			capt, err := Import(strings.NewReader(c.in), "in.x")
			var ie *ImportError
			if !errors.As(err, &ie) {
				t.Fatalf("Import = %v, %v; want an *ImportError", capt, err)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "in.x") || !strings.Contains(msg, c.reason) || !strings.Contains(msg, "HAR") {
				t.Errorf("error %q: want the file, %q and the formats accepted", msg, c.reason)
			}
		})
	}
}

// TestImportJSONLLongLine: a JSONL line longer than 64 MiB (the old
// scanner's cap, past which it silently dropped that line and every line
// after it) imports whole, and so does the line after it; its event is
// cut into chunks of at most 8 MiB, so every line of the capture stays
// readable (tape.MaxLine).
func TestImportJSONLLongLine(t *testing.T) {
	long := `{"type":"big","text":"` + strings.Repeat("x", 65<<20) + `"}`
	in := `{"type":"first"}` + "\n" + long + "\n" + `{"type":"last"}` + "\n"
	capt, err := Import(strings.NewReader(in), "big.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	up := capt.Exchanges[0].Upstream
	ch := up.Chunks
	want := "event: first\ndata: {\"type\":\"first\"}\n\nevent: big\ndata: " + long + "\n\nevent: last\ndata: {\"type\":\"last\"}\n\n"
	if string(up.Body()) != want {
		t.Fatalf("the body is not the three events (%d bytes, want %d)", len(up.Body()), len(want))
	}
	if len(ch) != 11 || !strings.HasPrefix(string(ch[len(ch)-1].Data), "event: last\n") {
		t.Errorf("%d chunks (want 11: the big event in 9), the last %q", len(ch), excerpt.Clip(string(ch[len(ch)-1].Data), 40))
	}
	for i, c := range ch {
		if len(c.Data) > 8<<20 {
			t.Errorf("chunk %d holds %d bytes", i, len(c.Data))
		}
	}
}
