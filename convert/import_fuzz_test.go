package convert

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/seam-dev/seam/tape"
)

// checkImport imports arbitrary bytes and checks what a user relies on:
// the input is either refused with an *ImportError naming the file, or
// every exchange it makes has a response and an end whose byte count is
// its chunks' total, a request body from parsed_body is valid JSON, and
// the capture survives being written and read back by tape unchanged and
// without anomalies.
func checkImport(t *testing.T, in []byte) {
	c, err := ImportBytes(in, "fuzz.in")
	if err != nil {
		var ie *ImportError
		if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), "fuzz.in") {
			t.Fatalf("error %v is not an ImportError naming the file", err)
		}
		return
	}
	if len(c.Exchanges) == 0 || c.Header.Imported == nil || c.Header.Engine.Profile != "passthrough" {
		t.Fatalf("capture with %d exchanges, header %+v", len(c.Exchanges), c.Header)
	}
	b := tape.AppendHeader(nil, c.Header)
	for _, x := range c.Exchanges {
		up := x.Upstream
		if up.Response == nil || up.End == nil {
			t.Fatalf("exchange %d without response or end", x.Ex)
		}
		if n := int64(len(up.Body())); up.End.Bytes != n {
			t.Fatalf("exchange %d: end bytes %d, chunks %d", x.Ex, up.End.Bytes, n)
		}
		b = tape.AppendExchange(b, x)
	}
	back, err := tape.Read(bytes.NewReader(b), "rt")
	if err != nil || len(back.Warnings) > 0 {
		t.Fatalf("written capture does not read back: %v %v", err, back.Warnings)
	}
	for i, x := range back.Exchanges {
		if !bytes.Equal(x.Upstream.Body(), c.Exchanges[i].Upstream.Body()) || len(x.Anomalies) > 0 {
			t.Fatalf("exchange %d changed on the way through tape: anomalies %+v", x.Ex, x.Anomalies)
		}
	}
}

// Small cassettes in each family's layout, cut from fixtures/import, seed
// the cassette fuzzer (the whole fixtures are read by the unit tests; seeds
// that size would slow the fuzzer a hundredfold).
var cassetteSeeds = []string{
	// go-vcr v1 (cassette format 1, yaml.v2).
	"---\nversion: 1\ninteractions:\n- request:\n    body: '{\"model\":\"gpt-4o\",\"q\":\"What''s\n      up\"}'\n    form: {}\n    headers:\n      Authorization:\n      - Bearer x\n    url: https://api.openai.com/v1/chat/completions\n    method: POST\n  response:\n    body: |+\n      data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n      data: [DONE]\n\n    headers:\n      Content-Type:\n      - text/event-stream\n    status: 200 OK\n    code: 200\n    duration: \"\"\n",
	// go-vcr v4 (cassette format 2), a !!binary body and a duration.
	"---\nversion: 2\ninteractions:\n    - id: 0\n      request:\n        proto: HTTP/1.1\n        content_length: 2\n        host: h\n        body: '{}'\n        url: https://h/model/m/converse-stream?x=1\n        method: POST\n      response:\n        proto: HTTP/1.1\n        content_length: -1\n        body: !!binary |\n            AAAArgAAAFIvUM5GCzpldmVudC10eXBl\n        headers:\n            Content-Type:\n                - application/vnd.amazon.eventstream\n        status: 200 OK\n        code: 200\n        duration: 161.267µs\n",
	// VCR.py, with !!binary header values and a double-quoted body.
	"interactions:\n- request:\n    body: null\n    headers:\n      Content-Type:\n      - !!binary |\n        YXBwbGljYXRpb24vanNvbg==\n    method: POST\n    uri: https://h/v1beta/models/g:streamGenerateContent?alt=sse#frag\n  response:\n    body:\n      string: \"data: {\\\"a\\\": 1}\\r\\n\\r\\ndata:\\\n        \\ {}\\r\\n\\r\\n\"\n    headers: {}\n    status:\n      code: 200\n      message: OK\nversion: 1\n",
	// pydantic-ai's parsed_body.
	"interactions:\n- request:\n    parsed_body: {b: 1.0e-05, a: 12345678901234567890, c: [x, null, true, 0x1F, .inf]}\n    method: POST\n    uri: https://h/x?key=s\n  response:\n    body: {string: !!binary AAEC}\n    status: {code: 200}\n",
	// go-vcr written as JSON.
	`{"version":2,"interactions":[{"id":0,"request":{"url":"http://h/","method":"GET","body":""},"response":{"body":"data: x\n\n","code":200,"duration":12}}]}`,
	// Ruby vcr (Psych): a !binary body, lower-case method, recorded_at.
	"---\nhttp_interactions:\n- request:\n    method: post\n    uri: https://api.deepseek.com/v1/chat/completions\n    body:\n      encoding: UTF-8\n      string: '{\"stream\":true}'\n    headers:\n      Authorization:\n      - Bearer <KEY>\n  response:\n    status:\n      code: 200\n      message: OK\n    headers:\n      Content-Type:\n      - text/event-stream\n    body:\n      encoding: ASCII-8BIT\n      string: !binary |-\n        ZGF0YTogW0RPTkVdCgo=\n  recorded_at: Fri, 14 Mar 2025 14:01:56 GMT\nrecorded_with: VCR 6.1.0\n",
	// Ruby vcr with preserve_exact_body_bytes and a Latin-1 body.
	"---\nhttp_interactions:\n- request:\n    method: get\n    uri: https://h/x\n  response:\n    status:\n      code: 200\n    body:\n      encoding: ASCII-8BIT\n      base64_string: |\n        AAEC\n- request:\n    method: get\n    uri: https://h/y\n  response:\n    body:\n      encoding: ISO-8859-1\n      string: \"caf\\xE9\"\n",
}

// FuzzImportCassette feeds YAML and JSON cassettes of both families to
// Import.
func FuzzImportCassette(f *testing.F) {
	for _, s := range cassetteSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := ImportBytes(in, "fuzz.in")
		if err == nil && strings.HasPrefix(c.Header.Imported.Format, "vcr.py") {
			for _, x := range c.Exchanges {
				if x.Request != nil && len(x.Request.Body) > 0 && bytes.Contains(in, []byte("parsed_body")) && !json.Valid(x.Request.Body) && bytes.HasPrefix(x.Request.Body, []byte("{")) {
					t.Fatalf("parsed_body re-emitted as invalid JSON: %q", x.Request.Body)
				}
			}
		}
		checkImport(t, in)
	})
}

// TestCassetteSeedsImport: every fuzz seed is a cassette import reads.
func TestCassetteSeedsImport(t *testing.T) {
	t.Parallel()
	for i, s := range cassetteSeeds {
		if _, err := ImportBytes([]byte(s), "seed"); err != nil {
			t.Errorf("seed %d: %v", i, err)
		}
	}
}

// FuzzImportHAR feeds HAR documents to Import.
func FuzzImportHAR(f *testing.F) {
	f.Add([]byte(`{"log":{"version":"1.2","entries":[{"startedDateTime":"2026-11-22T09:00:00.05Z","time":12.5,"request":{"method":"POST","url":"https://api.openai.com/v1/chat/completions","headers":[{"name":"content-type","value":"application/json"}],"postData":{"mimeType":"application/json","text":"{\"model\":\"m\"}"}},"response":{"status":200,"headers":[{"name":"content-type","value":"text/event-stream"}],"content":{"size":14,"mimeType":"text/event-stream","text":"data: [DONE]\n\n"}},"timings":{"send":0,"wait":6,"receive":2}}]}}`))
	f.Add([]byte(`{"log":{"entries":[{"startedDateTime":"2026-03-01T10:00:00Z","time":3.5,"request":{"method":"GET","url":"https://h/a?token=x","headers":[{"name":":path","value":"/"}]},"response":{"status":0,"headers":[],"content":{"size":9,"text":"AAEC","encoding":"base64"}},"timings":{"blocked":-1,"wait":2}}]}}`))
	f.Fuzz(func(t *testing.T, in []byte) { checkImport(t, in) })
}

// FuzzImportSnapshot feeds HTTP-snapshot JSON documents to Import.
func FuzzImportSnapshot(f *testing.F) {
	f.Add([]byte(`{"metadata":{"route":"/v1/x","captured_at":"2025-12-21T01:10:44.062Z"},"request":{"body":{"a":1}},"stream":[{"event":"e\nx","data":"line1\nline2"},{"data":{"k":[1,2]}},{"type":"done"}]}`))
	f.Fuzz(func(t *testing.T, in []byte) { checkImport(t, in) })
}

// FuzzImportJSONL feeds JSONL payloads and raw SSE bodies to Import.
func FuzzImportJSONL(f *testing.F) {
	f.Add([]byte(`{"type":"message_start","message":{"id":"msg_1","model":"claude"}}` + "\n" + `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}` + "\n"))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"refusal\":\"no\"}}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("{\"type\":\"a\\nb\"}\r\n\n{\"type\":1}\n[1]\n"))
	f.Add([]byte(": comment\r\ndata: x\r\r"))
	// AWS SDK ConverseStream events, as JSON lines and as an array.
	f.Add([]byte(`{"messageStart":{"role":"assistant"}}` + "\n" + `{"contentBlockDelta":{"delta":{"text":"Hi"},"contentBlockIndex":0}}` + "\n" + `{"throttlingException":{"message":"slow"}}` + "\n"))
	f.Add([]byte(`[{"messageStop":{"stopReason":"end_turn"}},{"metadata":{"usage":{"inputTokens":1}}}]`))
	f.Fuzz(func(t *testing.T, in []byte) { checkImport(t, in) })
}

// httprrSeed returns an httprr trace of one raw request and response.
func httprrSeed(req, resp string) string {
	return fmt.Sprintf("httprr trace v1\n%d %d\n%s%s", len(req), len(resp), req, resp)
}

// providerSeeds are recordings import reads (keyed by the format it says
// they are): an httprr trace, a body in chunked transfer framing, an empty
// event-stream message.
var providerSeeds = map[string]string{
	"httprr trace": httprrSeed("POST http://h/api/chat HTTP/1.1\r\nHost: h\r\nContent-Length: 13\r\nContent-Type: application/json\r\n\r\n{\"model\":\"m\"}",
		"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n19\r\n{\"model\":\"m\",\"done\":true}\r\n0\r\n\r\n"),
	"chunked body":          "1b\r\n{\"model\":\"m\",\"done\":false}\n\r\ne\r\n{\"done\":true}\n\r\n0\r\n\r\n",
	"aws event-stream body": "\x00\x00\x00\x10\x00\x00\x00\x00\x05\xc2\x48\xeb\x7d\x98\xc8\xff",
}

// FuzzImportProviders feeds the provider recordings and raw bodies to
// Import: httprr traces, nock and js-genai recordings, event-stream, NDJSON,
// JSON-array and single-document bodies, and bodies still in chunked
// transfer framing.
func FuzzImportProviders(f *testing.F) {
	for _, s := range providerSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte(httprrSeed("GET http://h/x HTTP/1.1\r\nHost: h\r\n\r\n", "HTTP/1.1 429 Too Many Requests\r\nContent-Length: 2\r\n\r\n{}")))
	f.Add([]byte(`[{"scope":"https://h:443","method":"POST","path":"/model/m%3A0/invoke-with-response-stream","body":{"a":1},"status":200,"response":"0000001d","rawHeaders":["Content-Type","application/vnd.amazon.eventstream"],"responseIsBinary":true}]`))
	f.Add([]byte(`{"interactions":[{"request":{"method":"POST","url":"https://h/v1/models/g:streamGenerateContent?alt=sse","bodySegments":[{"a":1}]},"response":{"statusCode":200,"headers":{"content-type":"text/event-stream"},"bodySegments":[{"candidates":[]},{"x":"y"}]}}]}`))
	f.Add([]byte("{\"model\":\"m\",\"created_at\":\"t\",\"message\":{\"content\":\"a\"},\"done\":false}\n{\"done\":true}\n"))
	f.Add([]byte(`[{"candidates":[{"content":{"parts":[{"text":"a"}]}}]}` + "\n,\r\n" + `{"candidates":[{"finishReason":"STOP"}]}]`))
	f.Fuzz(func(t *testing.T, in []byte) { checkImport(t, in) })
}

// TestProviderSeedsImport: the provider fuzz seeds that are whole
// recordings import, as the format they are.
func TestProviderSeedsImport(t *testing.T) {
	t.Parallel()
	for format, s := range providerSeeds {
		c, err := ImportBytes([]byte(s), "seed")
		if err != nil {
			t.Errorf("%s: %v", format, err)
		} else if got := c.Header.Imported.Format; got != format {
			t.Errorf("%s imported as %q", format, got)
		}
	}
}
