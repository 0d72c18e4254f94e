package convert_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gobwas/ws"

	"github.com/seam-dev/seam/convert"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/wsframe"
)

func exportCapture() *tape.Capture {
	x := &tape.Exchange{Ex: 1,
		Request: &tape.Request{Ex: 1, T: 1e6, Method: "POST", URL: "/v1/chat/completions?model=x&key=[redacted]&q=a%20b+c&flag&bad=%zz",
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
	if err := convert.WriteHAR(&b, exportCapture(), "test"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Log struct {
			Version string
			Entries []struct {
				StartedDateTime string
				Request         struct {
					URL         string
					QueryString []struct{ Name, Value string }
					PostData    struct{ Text string }
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
	if e.Request.URL != "https://api.openai.com/v1/chat/completions?model=x&key=[redacted]&q=a%20b+c&flag&bad=%zz" || e.Request.PostData.Text != `{"content":"it's"}` ||
		e.Response.Status != 200 || e.Response.Content.Text != "data: [DONE]\n\n" || e.Response.Content.MimeType != "text/event-stream" ||
		e.Timings.Wait != 6 || e.Timings.Receive != 2 || e.StartedDateTime != "2026-11-22T09:00:00.001Z" || !strings.Contains(e.Comment, "truncated") {
		t.Errorf("entry %+v", e)
	}
	// The query string, decoded, in order; a redacted value stays redacted.
	want := []struct{ Name, Value string }{{"model", "x"}, {"key", "[redacted]"}, {"q", "a b c"}, {"flag", ""}, {"bad", "%zz"}}
	if !slices.Equal(e.Request.QueryString, want) {
		t.Errorf("queryString %q, want %q", e.Request.QueryString, want)
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
	if err := convert.WriteHAR(&b, c, "test"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"url": "https://api.anthropic.com/v1/messages"`) {
		t.Errorf("HAR:\n%s", b.String())
	}
}

// FuzzWriteHAR exports an exchange made of arbitrary method, URL, header,
// request body and response chunk: the HAR is valid JSON and carries each
// of them back (bodies as text, or base64 when they are not UTF-8), as
// RedactStored redacts them.
func FuzzWriteHAR(f *testing.F) {
	f.Add("POST", "/v1/x?a=1&key=[redacted]&q=%zz", "x-a", "v", []byte(`{"k":"v"}`), []byte("data: [DONE]\n\n"))
	f.Add("GET", "", "", "", []byte{0xff, 0}, []byte("é"[:1]))
	f.Add("P\x00\u202e", "?&&=", "\x1b]52;c;x\x07", "\"\\", []byte("\u2028"), []byte{})
	f.Fuzz(func(t *testing.T, method, u, name, value string, body, chunk []byte) {
		x := &tape.Exchange{Ex: 1, Request: &tape.Request{Ex: 1, Method: method, URL: u, Headers: tape.Headers{name: {value}}, Body: body}}
		x.Upstream.Response = &tape.Response{Ex: 1, Side: tape.Upstream, Status: 200, Headers: tape.Headers{}}
		x.Upstream.Chunks = []tape.Chunk{{Ex: 1, Side: tape.Upstream, Data: chunk}}
		red, secrets := tape.RedactStored(x.Request)
		var b bytes.Buffer
		if err := convert.WriteHAR(&b, &tape.Capture{Header: tape.Header{Upstream: "https://h"}, Exchanges: []*tape.Exchange{x}}, "fuzz"); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Log struct {
				Entries []struct {
					Request struct {
						Method, URL string
						Headers     []struct{ Name, Value string }
						QueryString []struct{ Name, Value string }
						PostData    *struct{ Text, Encoding string }
					}
					Response struct {
						Content struct{ Text, Encoding string }
					}
				}
			}
		}
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatalf("invalid JSON: %v\n%s", err, b.Bytes())
		}
		if len(doc.Log.Entries) != 1 {
			t.Fatalf("%d entries", len(doc.Log.Entries))
		}
		e := doc.Log.Entries[0]
		// encoding/json writes each byte that is not UTF-8 as U+FFFD.
		text := func(s string) string {
			var b strings.Builder
			for _, r := range s {
				b.WriteRune(r)
			}
			return b.String()
		}
		if e.Request.Method != text(method) || e.Request.URL != text("https://h"+red.URL) {
			t.Errorf("request %q %q", e.Request.Method, e.Request.URL)
		}
		wantValue := red.Headers[strings.ToLower(name)][0]
		if len(e.Request.Headers) != 1 || e.Request.Headers[0].Name != text(strings.ToLower(name)) || e.Request.Headers[0].Value != text(wantValue) {
			t.Errorf("headers %q, want %q: %q", e.Request.Headers, strings.ToLower(name), wantValue)
		}
		decode := func(text, enc string) []byte {
			if enc == "base64" {
				b, err := base64.StdEncoding.DecodeString(text)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			return []byte(text)
		}
		if len(red.Body) > 0 && (e.Request.PostData == nil || !bytes.Equal(decode(e.Request.PostData.Text, e.Request.PostData.Encoding), red.Body)) {
			t.Errorf("post data %+v, want %q", e.Request.PostData, red.Body)
		}
		wantBody, _ := tape.MaskSecrets(chunk, secrets, nil)
		if got := decode(e.Response.Content.Text, e.Response.Content.Encoding); !bytes.Equal(got, wantBody) {
			t.Errorf("response body %q, want %q", got, wantBody)
		}
	})
}

// TestHARWebSocket: a WebSocket exchange's messages go in the entry's
// _webSocketMessages, as Chrome and Firefox write them (send or receive,
// seconds since the epoch, opcode, data), decoded: the client's frames
// unmasked, the server's inflated; the 101 response has no body (it had
// the client's masked frames), and the entry says how the session closed.
func TestHARWebSocket(t *testing.T) {
	started := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	x := &tape.Exchange{Ex: 1, Request: &tape.Request{Ex: 1, T: 1e6, Method: "GET", URL: "/v1/realtime?model=gpt-realtime"}}
	frames := map[tape.Side][][]byte{
		tape.Client: {
			ws.MustCompileFrame(ws.MaskFrame(ws.NewTextFrame([]byte(`{"type":"response.create"}`)))),
			ws.MustCompileFrame(ws.MaskFrame(ws.NewBinaryFrame([]byte{0, 1, 0xff}))),
		},
		tape.Upstream: {
			wsframe.AppendFrame(nil, wsframe.Header{Fin: true, Rsv1: true, Opcode: wsframe.Text}, wsframe.Deflate(nil, []byte(`{"type":"session.created"}`))),
			wsframe.AppendFrame(nil, wsframe.Header{Fin: true, Rsv1: true, Opcode: wsframe.Text}, wsframe.Deflate(nil, []byte(`{"type":"response.done"}`))),
			ws.MustCompileFrame(ws.NewCloseFrame(ws.NewCloseFrameBody(1011, "boom"))),
		},
	}
	times := map[tape.Side][]int64{tape.Upstream: {2e6, 4e6, 5e6}, tape.Client: {3e6, 3500e3}}
	for side, fs := range frames {
		sd := x.Side(side)
		sd.Response = &tape.Response{Ex: 1, Side: side, T: 1e6, Status: 101, Headers: tape.Headers{"sec-websocket-extensions": {"permessage-deflate"}}}
		var off int64
		for i, f := range fs {
			sd.Chunks = append(sd.Chunks, tape.Chunk{Ex: 1, Side: side, T: times[side][i], Off: off, Data: f})
			off += int64(len(f))
		}
		sd.End = &tape.End{Ex: 1, Side: side, T: 6e6, Outcome: tape.Complete, Bytes: off}
	}
	c := &tape.Capture{Header: tape.Header{V: 1, Upstream: "https://api.openai.com", Started: started}, Exchanges: []*tape.Exchange{x}}
	var b bytes.Buffer
	if err := convert.WriteHAR(&b, c, "test"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Log struct {
			Entries []struct {
				Response struct {
					Status   int
					Content  struct{ Text string }
					BodySize int
				}
				Comment           string
				ResourceType      string `json:"_resourceType"`
				WebSocketMessages []struct {
					Type   string
					Time   float64
					Opcode int
					Data   string
				} `json:"_webSocketMessages"`
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	e := doc.Log.Entries[0]
	if e.Response.Status != 101 || e.Response.Content.Text != "" || e.Response.BodySize != 0 || e.ResourceType != "websocket" || !strings.Contains(e.Comment, `server closed 1011 "boom"`) {
		t.Errorf("entry %+v", e)
	}
	var got []string
	for _, m := range e.WebSocketMessages {
		got = append(got, fmt.Sprintf("%s %.4f %d %s", m.Type, m.Time-float64(started.Unix()), m.Opcode, m.Data))
	}
	want := []string{
		`receive 0.0020 1 {"type":"session.created"}`,
		`send 0.0030 1 {"type":"response.create"}`,
		"send 0.0035 2 " + base64.StdEncoding.EncodeToString([]byte{0, 1, 0xff}),
		`receive 0.0040 1 {"type":"response.done"}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("_webSocketMessages\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
