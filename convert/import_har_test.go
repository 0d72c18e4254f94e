package convert

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/tape"
)

// TestImportHARRoundTrip: a capture exported as HAR imports back as HAR
// with the same requests, the client side's status, headers and body byte
// for byte, the capture's start time, and each exchange's first-byte and
// end times from the entry's timings (to the microsecond HAR keeps).
func TestImportHARRoundTrip(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"openai-chat-tools.ndjson", "openai-responses-tool-then-text.ndjson", "anthropic-tool-use.ndjson"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			orig, err := tape.ReadFile("../fixtures/" + name)
			if err != nil {
				t.Fatal(err)
			}
			var har bytes.Buffer
			if err := WriteHAR(&har, orig, "test"); err != nil {
				t.Fatal(err)
			}
			capt, err := Import(&har, name+".har")
			if err != nil {
				t.Fatal(err)
			}
			if im := capt.Header.Imported; im == nil || im.Format != "har" || im.Timing != tape.TimingPartial {
				t.Errorf("imported = %+v", im)
			}
			first := orig.Exchanges[0].Request.T
			if want := orig.Header.Started.Add(time.Duration(first)); !capt.Header.Started.Equal(want) {
				t.Errorf("started %v, want %v (the first entry's start)", capt.Header.Started, want)
			}
			if capt.Header.Upstream != orig.Header.Upstream {
				t.Errorf("upstream %q, want %q", capt.Header.Upstream, orig.Header.Upstream)
			}
			if len(capt.Exchanges) != len(orig.Exchanges) {
				t.Fatalf("%d exchanges, want %d", len(capt.Exchanges), len(orig.Exchanges))
			}
			near := func(got, want int64) bool { return got-want < 1e3 && want-got < 1e3 }
			for i, o := range orig.Exchanges {
				x := capt.Exchanges[i]
				if x.Request.Method != o.Request.Method || x.Request.URL != o.Request.URL || !bytes.Equal(x.Request.Body, o.Request.Body) {
					t.Errorf("exchange %d: request %s %s %q", x.Ex, x.Request.Method, x.Request.URL, excerpt.Clip(string(x.Request.Body), 60))
				}
				if got, want := x.Upstream.Body(), o.Client.Body(); !bytes.Equal(got, want) {
					t.Errorf("exchange %d: body differs (%d vs %d bytes)", x.Ex, len(got), len(want))
				}
				if x.Upstream.Response.Status != o.Client.Response.Status || x.Upstream.Response.Headers["content-type"][0] != o.Client.Response.Headers["content-type"][0] {
					t.Errorf("exchange %d: response %+v", x.Ex, x.Upstream.Response)
				}
				if !near(x.Request.T, o.Request.T-first) {
					t.Errorf("exchange %d: request t %d, want %d", x.Ex, x.Request.T, o.Request.T-first)
				}
				if got, want := x.Upstream.Chunks[0].T, o.Client.Chunks[0].T-first; !near(got, want) {
					t.Errorf("exchange %d: first byte t %d, want %d", x.Ex, got, want)
				}
				if got, want := x.Upstream.End.T, o.Client.End.T-first; !near(got, want) {
					t.Errorf("exchange %d: end t %d, want %d", x.Ex, got, want)
				}
			}
		})
	}
}

// TestImportHARBrowser: a HAR as browsers write it: HTTP/2 pseudo-headers
// (dropped), a base64 response body that is not UTF-8 (kept byte for
// byte), timings with -1 for phases that did not happen, a credential in a
// header and in the query (redacted), an entry whose body the browser did
// not keep (noted, not invented), and a failed entry (status 0).
func TestImportHARBrowser(t *testing.T) {
	t.Parallel()
	bin := []byte{0x00, 0x00, 0x00, 0x10, 0xff, 0xfe, 'h', 'i'}
	sse := "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n"
	doc := map[string]any{"log": map[string]any{"version": "1.2", "entries": []any{
		map[string]any{
			"startedDateTime": "2026-03-01T10:00:00.000Z", "time": 250.5,
			"request": map[string]any{"method": "POST", "url": "https://api.openai.com/v1/chat/completions?key=sk-live",
				"headers":  []any{map[string]string{"name": ":authority", "value": "api.openai.com"}, map[string]string{"name": "Authorization", "value": "Bearer sk-live"}},
				"postData": map[string]string{"mimeType": "application/json", "text": `{"model":"gpt-4o","stream":true}`}},
			"response": map[string]any{"status": 200, "headers": []any{map[string]string{"name": "content-type", "value": "text/event-stream"}},
				"content": map[string]any{"size": len(sse), "mimeType": "text/event-stream", "text": sse}},
			"timings": map[string]float64{"blocked": -1, "dns": -1, "connect": -1, "send": 0.5, "wait": 120, "receive": 130},
		},
		map[string]any{
			"startedDateTime": "2026-03-01T10:00:01.000Z", "time": 10,
			"request": map[string]any{"method": "GET", "url": "https://api.openai.com/v1/files/f1/content", "headers": []any{}},
			"response": map[string]any{"status": 200, "headers": []any{},
				"content": map[string]any{"size": len(bin), "mimeType": "application/octet-stream", "text": base64.StdEncoding.EncodeToString(bin), "encoding": "base64"}},
			"timings": map[string]float64{"wait": 5},
		},
		map[string]any{
			"startedDateTime": "2026-03-01T10:00:02.000Z", "time": 3,
			"request":  map[string]any{"method": "GET", "url": "https://api.openai.com/v1/models", "headers": []any{}},
			"response": map[string]any{"status": 200, "headers": []any{}, "content": map[string]any{"size": 900, "mimeType": "application/json"}},
		},
		map[string]any{
			"startedDateTime": "2026-03-01T10:00:03.000Z", "time": 0,
			"request":  map[string]any{"method": "GET", "url": "https://api.openai.com/v1/models", "headers": []any{}},
			"response": map[string]any{"status": 0, "headers": []any{}, "content": map[string]any{"size": 0, "mimeType": ""}},
		},
	}}}
	b, _ := json.Marshal(doc)
	capt, err := Import(bytes.NewReader(b), "browser.har")
	if err != nil {
		t.Fatal(err)
	}
	if len(capt.Exchanges) != 4 {
		t.Fatalf("%d exchanges", len(capt.Exchanges))
	}
	x := capt.Exchanges[0]
	if x.Request.URL != "/v1/chat/completions?key=[redacted]" || x.Request.Headers["authorization"][0] != tape.Redacted {
		t.Errorf("secrets: url %q headers %v", x.Request.URL, x.Request.Headers)
	}
	if _, ok := x.Request.Headers[":authority"]; ok {
		t.Errorf("pseudo-header kept: %v", x.Request.Headers)
	}
	if x.Request.Headers["content-type"][0] != "application/json" {
		t.Errorf("postData mimeType not kept as the content type: %v", x.Request.Headers)
	}
	if string(x.Upstream.Body()) != sse || len(x.Upstream.Chunks) != 2 {
		t.Errorf("body %q in %d chunks", x.Upstream.Body(), len(x.Upstream.Chunks))
	}
	if x.Upstream.Chunks[0].T != 120.5e6 || x.Upstream.End.T != 250.5e6 {
		t.Errorf("first byte %d end %d, want 120.5 ms and 250.5 ms", x.Upstream.Chunks[0].T, x.Upstream.End.T)
	}
	if y := capt.Exchanges[1]; !bytes.Equal(y.Upstream.Body(), bin) || y.Request.T != 1e9 {
		t.Errorf("binary body %q at t %d", y.Upstream.Body(), y.Request.T)
	}
	if z := capt.Exchanges[2]; len(z.Upstream.Chunks) != 0 || len(z.Notes) != 1 || !strings.Contains(z.Notes[0].Text, "does not hold the response body (900 bytes)") {
		t.Errorf("missing body: chunks %d notes %+v", len(z.Upstream.Chunks), z.Notes)
	}
	if f := capt.Exchanges[3].Upstream.End; f.Outcome != tape.UpstreamError {
		t.Errorf("status 0 entry ended %+v", f)
	}
}
