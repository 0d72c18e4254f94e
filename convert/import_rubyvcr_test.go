package convert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/tape"
	"go.yaml.in/yaml/v3"
)

// round3Dir holds the Ruby vcr cassettes recorded by public projects, with
// each interaction's response body as PyYAML reads it beside them
// (fixtures/round3/README.md).
const round3Dir = "../fixtures/round3"

// TestImportRubyVCRCassettes imports the Ruby vcr cassettes of
// ruby-openai, the anthropic gem and activeagent, and checks each exchange
// against the cassette: the body byte for byte with the one PyYAML reads
// (a !binary body decoded, text as UTF-8), the method (VCR writes it
// lower-case), URL, status, content type, the credential redacted, the
// capture started at the first recorded_at; and that seam assembles what
// the streams say.
func TestImportRubyVCRCassettes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file, host, path, started string
		status                    []int
		check                     func(t *testing.T, r *inspect.Report)
	}{
		{"rubyopenai-deepseek-chat-stream.yml", "api.deepseek.com", "/v1/chat/completions", "2025-03-14T14:01:56Z", []int{200},
			func(t *testing.T, r *inspect.Report) {
				if m := r.Exchanges[0].Sides[0].Message; m.Text() != "Hello! How can I assist you today? 😊" || m.Usage == nil || m.Usage.Output != 11 {
					t.Errorf("deepseek: text %q usage %+v", m.Text(), m.Usage)
				}
			}},
		{"rubyanthropic-haiku-stream-tool-use.yml", "api.anthropic.com", "/v1/messages", "2025-01-29T12:43:04Z", []int{200},
			func(t *testing.T, r *inspect.Report) {
				ch := r.Exchanges[0].Sides[0].Message.Choices[0]
				if len(ch.ToolCalls) != 1 || ch.ToolCalls[0].Name != "get_weather" || !json.Valid([]byte(ch.ToolCalls[0].Arguments)) || ch.FinishReason != "tool_use" {
					t.Errorf("anthropic gem: %+v", ch)
				}
			}},
		{"activeagent-openrouter-gemini-tools-stream.yml", "openrouter.ai", "/api/v1/chat/completions", "2025-10-26T19:06:36Z", []int{200, 200},
			func(t *testing.T, r *inspect.Report) {
				if calls := r.Exchanges[0].Sides[0].Message.Choices[0].ToolCalls; len(calls) != 1 {
					t.Errorf("openrouter turn 1: %+v", calls)
				}
				if r.Exchanges[1].Sides[0].Message.Text() == "" {
					t.Error("openrouter turn 2: no text")
				}
			}},
		{"activeagent-openai-responses-tools-stream.yml", "api.openai.com", "/v1/responses", "2025-11-12T03:57:29Z", []int{200, 200},
			func(t *testing.T, r *inspect.Report) {
				if calls := r.Exchanges[0].Sides[0].Message.Choices[0].ToolCalls; len(calls) != 1 || calls[0].Name != "get_current_weather" {
					t.Errorf("responses turn 1: %+v", calls)
				}
				if got := r.Exchanges[1].Sides[0].Message.Text(); !strings.Contains(got, "22°C") {
					t.Errorf("responses turn 2 (a !binary body): text %q", got)
				}
			}},
		{"activeagent-anthropic-400-prefill.yml", "api.anthropic.com", "/v1/messages", "2026-07-13T23:15:47Z", []int{400}, nil},
		{"rubyopenai-assistants-runs-stream.yml", "api.openai.com", "", "2024-04-27T22:07:46Z", []int{200, 400, 400, 200}, nil},
	} {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(filepath.Join(round3Dir, c.file))
			if err != nil {
				t.Fatal(err)
			}
			capt, err := Import(bytes.NewReader(src), c.file)
			if err != nil {
				t.Fatal(err)
			}
			h := capt.Header
			if h.Imported == nil || h.Imported.Format != "ruby vcr cassette" || h.Imported.Timing != tape.TimingNone {
				t.Errorf("imported = %+v", h.Imported)
			}
			if want, _ := time.Parse(time.RFC3339, c.started); !h.Started.Equal(want) {
				t.Errorf("started %v, want the first recorded_at %v", h.Started, want)
			}
			if h.Upstream != "https://"+c.host {
				t.Errorf("upstream %q, want https://%s", h.Upstream, c.host)
			}
			if len(capt.Exchanges) != len(c.status) {
				t.Fatalf("%d exchanges, want %d", len(capt.Exchanges), len(c.status))
			}
			base := strings.TrimSuffix(c.file, ".yml")
			for i, x := range capt.Exchanges {
				if x.Request.Method != "POST" || c.path != "" && x.Request.URL != c.path {
					t.Errorf("exchange %d: %s %s, want POST %s", x.Ex, x.Request.Method, x.Request.URL, c.path)
				}
				if !json.Valid(x.Request.Body) {
					t.Errorf("exchange %d: request body %q is not the JSON the client sent", x.Ex, x.Request.Body)
				}
				key := "authorization"
				if c.host == "api.anthropic.com" {
					key = "x-api-key"
				}
				if got := x.Request.Headers[key]; len(got) != 1 || got[0] != tape.Redacted {
					t.Errorf("exchange %d: %s %q reached the capture", x.Ex, key, got)
				}
				r := x.Upstream.Response
				if r.Status != c.status[i] {
					t.Errorf("exchange %d: status %d, want %d", x.Ex, r.Status, c.status[i])
				}
				want, ext := derivedBody(t, base, i+1)
				if got := x.Upstream.Body(); !bytes.Equal(got, want) {
					t.Errorf("exchange %d: body (%d bytes) differs from the derived one (%d bytes)", x.Ex, len(got), len(want))
				}
				if ct := r.Headers["content-type"]; len(ct) != 1 || strings.Contains(ct[0], "event-stream") != (ext == ".sse") {
					t.Errorf("exchange %d: content-type %q for a %s body", x.Ex, ct, ext)
				}
			}
			rep := inspect.Inspect(capt, inspect.Options{})
			for _, x := range rep.Exchanges {
				for _, f := range x.Findings {
					if f.Severity == inspect.Error && x.Status < 400 {
						t.Errorf("exchange %d: error finding %s: %s", x.Ex, f.ID, f.Message)
					}
				}
			}
			if c.check != nil {
				c.check(t, rep)
			}
		})
	}
}

// derivedBody returns the body PyYAML read from interaction n of the
// cassette named base, base.n.sse or base.n.json, and its extension.
func derivedBody(t *testing.T, base string, n int) ([]byte, string) {
	t.Helper()
	for _, ext := range []string{".sse", ".json"} {
		if b, err := os.ReadFile(filepath.Join(round3Dir, fmt.Sprintf("%s.%d%s", base, n, ext))); err == nil {
			return b, ext
		}
	}
	t.Fatalf("no derived body for interaction %d of %s", n, base)
	return nil, ""
}

// TestImportRubyVCRShapes: the body forms VCR writes besides a UTF-8
// string: base64_string (preserve_exact_body_bytes, Base64.encode64's
// line breaks), a binary string Psych tags !binary, an ISO-8859-1 body
// (stored as its text; VCR re-encodes it on playback), and an encoding
// seam cannot re-encode, kept as UTF-8 text with a note saying so. The
// cassette is read as JSON too (serialize_with :json).
func TestImportRubyVCRShapes(t *testing.T) {
	t.Parallel()
	cassette := `---
http_interactions:
- request:
    method: post
    uri: https://api.example.com/v1/chat/completions?api_key=sk-secret
    body:
      encoding: UTF-8
      string: ''
    headers: {}
  response:
    status:
      code: 200
      message: OK
    headers:
      Content-Type:
      - application/octet-stream
    body:
      encoding: ASCII-8BIT
      base64_string: |
        AAECA/8=
  recorded_at: Fri, 14 Mar 2025 14:01:56 GMT
- request:
    method: get
    uri: https://api.example.com/latin
    body:
      encoding: US-ASCII
      string: ''
    headers: {}
  response:
    status:
      code: 200
      message: OK
    headers: {}
    body:
      encoding: ISO-8859-1
      string: "caf\xE9"
  recorded_at: Fri, 14 Mar 2025 14:02:00 GMT
- request:
    method: get
    uri: https://api.example.com/sjis
    headers: {}
  response:
    status:
      code: 200
    headers: {}
    body:
      encoding: Shift_JIS
      string: "日本"
    http_version:
  recorded_at: Fri, 14 Mar 2025 14:02:01 GMT
- request:
    method: get
    uri: https://api.example.com/binary
    headers: {}
  response:
    status:
      code: 200
    headers: {}
    body:
      encoding: ASCII-8BIT
      string: !binary |-
        3q2+7w==
recorded_with: VCR 6.1.0
`
	check := func(t *testing.T, capt *tape.Capture) {
		t.Helper()
		want := []string{"\x00\x01\x02\x03\xff", "caf\xe9", "日本", "\xde\xad\xbe\xef"}
		if len(capt.Exchanges) != len(want) {
			t.Fatalf("%d exchanges", len(capt.Exchanges))
		}
		for i, x := range capt.Exchanges {
			if got := string(x.Upstream.Body()); got != want[i] {
				t.Errorf("exchange %d: body %q, want %q", x.Ex, got, want[i])
			}
		}
		if x := capt.Exchanges[0]; x.Request.Body != nil || strings.Contains(x.Request.URL, "sk-secret") {
			t.Errorf("exchange 1: request %q body %q", x.Request.URL, x.Request.Body)
		}
		if x := capt.Exchanges[1]; x.Request.Method != "GET" {
			t.Errorf("exchange 2: method %q", x.Request.Method)
		}
		if n := capt.Exchanges[2].Notes; len(n) != 1 || !strings.Contains(n[0].Text, "Shift_JIS") {
			t.Errorf("exchange 3: notes %+v, want one naming Shift_JIS", n)
		}
	}
	capt, err := Import(strings.NewReader(cassette), "shapes.yml")
	if err != nil {
		t.Fatal(err)
	}
	check(t, capt)

	var doc any
	if err := yaml.Unmarshal([]byte(strings.Replace(cassette, "string: !binary |-\n        3q2+7w==", "base64_string: 3q2+7w==", 1)), &doc); err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	capt, err = Import(bytes.NewReader(js), "shapes.json")
	if err != nil {
		t.Fatal(err)
	}
	if capt.Header.Imported.Format != "ruby vcr cassette" {
		t.Errorf("JSON cassette format %q", capt.Header.Imported.Format)
	}
	check(t, capt)
}

// TestImportRubyVCRRefuses: a Ruby cassette that is not one is refused
// with where and why.
func TestImportRubyVCRRefuses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, in, reason string }{
		{"not a list", "http_interactions: 3\n", "http_interactions is not a list"},
		{"no uri", "http_interactions:\n- request: {method: post}\n  response: {}\n", "interaction 1 has no request uri"},
		{"bad base64", "http_interactions:\n- request: {method: get, uri: 'https://a/'}\n  response:\n    body: {encoding: ASCII-8BIT, base64_string: '!!'}\n", "base64_string"},
		{"not latin-1", "http_interactions:\n- request: {method: get, uri: 'https://a/'}\n  response:\n    body: {encoding: ISO-8859-1, string: '日'}\n", "not ISO-8859-1"},
		{"broken yaml", "---\nhttp_interactions:\n- request: [\n", "a YAML cassette that does not parse"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := Import(strings.NewReader(c.in), "r.yml")
			if err == nil || !strings.Contains(err.Error(), c.reason) || !strings.HasPrefix(err.Error(), "r.yml") {
				t.Errorf("Import = %v, want an error naming r.yml and %q", err, c.reason)
			}
		})
	}
}
