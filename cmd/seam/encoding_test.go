package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/seam-dev/seam/sse"
	"github.com/seam-dev/seam/tape"
)

// compressingServer streams body's events compressed with the coding the
// request's Accept-Encoding names (identity when none), flushing a
// compressed block and the response after each event, as a real streaming
// server does.
func compressingServer(t *testing.T, body []byte) *httptest.Server {
	t.Helper()
	events := sse.SplitEvents(body)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		ae := r.Header.Get("Accept-Encoding")
		var cw interface {
			io.Writer
			Flush() error
			Close() error
		}
		switch ae {
		case "gzip":
			cw = gzip.NewWriter(w)
		case "br":
			cw = brotli.NewWriter(w)
		case "zstd":
			cw, _ = zstd.NewWriter(w)
		}
		if cw == nil {
			for _, e := range events {
				w.Write(e)
				w.(http.Flusher).Flush()
			}
			return
		}
		w.Header().Set("Content-Encoding", ae)
		for _, e := range events {
			cw.Write(e)
			cw.Flush()
			w.(http.Flusher).Flush()
		}
		cw.Close()
	}))
	t.Cleanup(s.Close)
	return s
}

// inspectView is what a user relies on in an inspect report, whatever the
// wire encoding: the protocol, outcome, assembled messages, what each
// client ends up with, and the findings (where they point aside, as the
// compressed reads are cut elsewhere).
type inspectView struct {
	Protocol string
	Outcome  string
	Messages []json.RawMessage
	Clients  json.RawMessage
	Findings []string
}

func encodedView(t *testing.T, capture string) inspectView {
	t.Helper()
	out, err := seamOutput("inspect", "--json", capture)
	if err != nil {
		t.Fatalf("seam inspect %s: %v\n%s", capture, err, out)
	}
	var r struct {
		Exchanges []struct {
			Protocol string          `json:"protocol"`
			Outcome  string          `json:"outcome"`
			Clients  json.RawMessage `json:"clients"`
			Sides    []struct {
				Message json.RawMessage `json:"message"`
			} `json:"sides"`
			Findings []struct {
				ID, Severity, Message, Evidence string
			} `json:"findings"`
		} `json:"exchanges"`
	}
	if err := json.Unmarshal(out, &r); err != nil || len(r.Exchanges) != 1 {
		t.Fatalf("inspect output: %v\n%s", err, out)
	}
	x := r.Exchanges[0]
	v := inspectView{Protocol: x.Protocol, Outcome: x.Outcome, Clients: x.Clients}
	for _, s := range x.Sides {
		v.Messages = append(v.Messages, s.Message)
	}
	for _, f := range x.Findings {
		v.Findings = append(v.Findings, f.Severity+" "+f.ID+": "+f.Message+" | "+f.Evidence)
	}
	return v
}

// TestRecordCompressedUpstreams records real compressing servers (gzip, br,
// zstd) through "seam record", the client asking for each coding: every
// capture keeps the compressed wire bytes, and inspects exactly like the
// identity recording of the same stream, with outcome complete.
func TestRecordCompressedUpstreams(t *testing.T) {
	t.Parallel()
	for _, s := range []struct{ file, url string }{
		{"realworld/anthropic-sdk-tool-use-response.sse", "/v1/messages"},
		{"providers/gemini/gemini-fb-googleai-thinking-function-call.sse", "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"},
	} {
		t.Run(filepath.Base(s.file), func(t *testing.T) {
			t.Parallel()
			body, err := os.ReadFile(filepath.Join(fixturesDir, s.file))
			if err != nil {
				t.Fatal(err)
			}
			up := compressingServer(t, body)
			views := map[string]inspectView{}
			for _, ae := range []string{"identity", "gzip", "br", "zstd"} {
				out := filepath.Join(t.TempDir(), ae+".ndjson")
				rec, addr := startRecord(t, up.URL, out)
				req, _ := http.NewRequest("POST", "http://"+addr+s.url, strings.NewReader(`{"model":"m","stream":true}`))
				req.Header.Set("Accept-Encoding", ae)
				tr := &http.Transport{DisableCompression: true}
				resp, err := (&http.Client{Transport: tr}).Do(req)
				if err != nil {
					t.Fatal(err)
				}
				wire, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				tr.CloseIdleConnections()
				rec.Process.Signal(os.Interrupt)
				rec.Wait()
				if ae != "identity" && (resp.Header.Get("Content-Encoding") != ae || bytes.Contains(wire, []byte("data:"))) {
					t.Fatalf("%s: the client did not get the compressed body (Content-Encoding %q)", ae, resp.Header.Get("Content-Encoding"))
				}
				v := encodedView(t, out)
				if v.Outcome != "complete" {
					t.Errorf("%s: outcome %s, want complete", ae, v.Outcome)
				}
				views[ae] = v
			}
			for _, ae := range []string{"gzip", "br", "zstd"} {
				if !reflect.DeepEqual(views[ae], views["identity"]) {
					t.Errorf("%s inspects differently from identity:\n got %+v\nwant %+v", ae, views[ae], views["identity"])
				}
			}
			t.Logf("identity: %s, findings %q", views["identity"].Protocol, views["identity"].Findings)
			if len(views["identity"].Messages) != 2 || views["identity"].Protocol == "unknown" {
				t.Errorf("identity view %+v", views["identity"])
			}
		})
	}
}

// TestExportCompressed: "seam export --format sse" writes a compressed
// body decoded (--wire: as sent), and the HAR holds the decoded text with
// the wire size.
func TestExportCompressed(t *testing.T) {
	t.Parallel()
	plain := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"
	var z bytes.Buffer
	gw := gzip.NewWriter(&z)
	gw.Write([]byte(plain))
	gw.Close()
	c := &tape.Capture{Header: tape.Header{V: tape.Version, Upstream: "http://up"}}
	x := &tape.Exchange{Ex: 1, Request: &tape.Request{Ex: 1, Method: "POST", URL: "/v1/chat/completions", Body: []byte(`{}`)}}
	x.Upstream.Response = &tape.Response{Ex: 1, Side: tape.Upstream, Status: 200, Headers: tape.Headers{"content-type": {"text/event-stream"}, "content-encoding": {"gzip"}}}
	x.Upstream.Chunks = []tape.Chunk{{Ex: 1, Side: tape.Upstream, Data: z.Bytes()}}
	x.Upstream.End = &tape.End{Ex: 1, Side: tape.Upstream, Outcome: tape.Complete, Bytes: int64(z.Len())}
	c.Exchanges = []*tape.Exchange{x}
	path := filepath.Join(t.TempDir(), "gz.ndjson")
	f, _ := os.Create(path)
	if err := tape.WriteCapture(context.Background(), f, c, version); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out, err := seamOutput("export", "--format", "sse", "--side", "upstream", path)
	if err != nil || string(out) != plain {
		t.Fatalf("export sse: %v %q", err, out)
	}
	out, _ = seamOutput("export", "--format", "sse", "--side", "upstream", "--wire", path)
	if !bytes.Equal(out, z.Bytes()) {
		t.Fatalf("export sse --wire: %q", out)
	}
	out, err = seamOutput("export", "--format", "har", path)
	var har struct {
		Log struct {
			Entries []struct {
				Response struct {
					BodySize int64 `json:"bodySize"`
					Content  struct {
						Size        int64  `json:"size"`
						Compression int64  `json:"compression"`
						Text        string `json:"text"`
					} `json:"content"`
				} `json:"response"`
			} `json:"entries"`
		} `json:"log"`
	}
	if err != nil || json.Unmarshal(out, &har) != nil || len(har.Log.Entries) != 1 {
		t.Fatalf("export har: %v\n%s", err, out)
	}
	r := har.Log.Entries[0].Response
	if r.Content.Text != plain || r.BodySize != int64(z.Len()) || r.Content.Size != int64(len(plain)) || r.Content.Compression != int64(len(plain)-z.Len()) {
		t.Errorf("har response %+v", r)
	}
}

// TestServeImportedProviderBodies imports provider recordings as they are
// stored in the wild (a raw event-stream body, a raw NDJSON body, an httprr
// trace holding a JSON-array stream, a nock recording) and replays each
// through "seam serve": the answer has the framing's Content-Type and the
// recorded body byte for byte, so a proxy in front of Bedrock, Ollama or
// Gemini can be tested offline.
func TestServeImportedProviderBodies(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file, ct, body, url string
	}{
		{"bedrock/bedrock-converse-stream-claude3-tool-use.eventstream", "application/vnd.amazon.eventstream", "bedrock/bedrock-converse-stream-claude3-tool-use.eventstream", ""},
		{"ollama/ollama-langchaingo-chat-stream.chunked.body", "application/x-ndjson", "ollama/ollama-langchaingo-chat-stream.ndjson", ""},
		{"gemini/gemini-langchaingo-json-array-stream.httprr", "application/json", "gemini/gemini-langchaingo-json-array-stream.body.json",
			"/v1beta/models/gemini-2.0-flash:streamGenerateContent?%24alt=json%3Benum-encoding%3Dint"},
		{"bedrock/bedrock-invoke-stream-claude3-tool-use.nock.json", "application/vnd.amazon.eventstream", "bedrock/bedrock-invoke-stream-claude3-tool-use.eventstream",
			"/model/anthropic.claude-3-sonnet-20240229-v1%3A0/invoke-with-response-stream"},
		// VCR.py cassettes: a !!binary event-stream body, and bodies whose
		// cassette kept no Content-Type, served with their framing's.
		{"bedrock/bedrock-converse-stream-titan-guardrail.yaml", "application/vnd.amazon.eventstream", "bedrock/bedrock-converse-stream-titan-guardrail.eventstream",
			"/model/amazon.titan-text-express-v1/converse-stream"},
		{"ollama/ollama-openinference-chat-stream-thinking.yaml", "application/x-ndjson", "ollama/ollama-openinference-chat-stream-thinking.ndjson", "/api/chat"},
		{"gemini/gemini-openinference-sse-parallel-function-calls.yaml", "text/event-stream", "gemini/gemini-openinference-sse-parallel-function-calls.sse",
			"/v1beta/models/gemini-3.5-flash:streamGenerateContent?alt=sse"},
	} {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			t.Parallel()
			capture := filepath.Join(t.TempDir(), "imported.ndjson")
			args := []string{"import", "-o", capture}
			if c.url == "" {
				// A raw body: give it the request a client sends.
				req := filepath.Join(t.TempDir(), "req.json")
				if err := os.WriteFile(req, []byte(`{"model":"m","stream":true}`), 0o600); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--url", "/v1/stream", "--request", req)
			}
			args = append(args, filepath.Join(fixturesDir, "providers", c.file))
			if out, err := seamCombinedOutput(args...); err != nil {
				t.Fatalf("seam import: %v\n%s", err, out)
			}
			src, err := tape.ReadFile(capture)
			if err != nil {
				t.Fatal(err)
			}
			x := src.Exchanges[0]
			method, url, reqBody := "POST", "/", []byte(nil)
			if x.Request != nil {
				method, url, reqBody = x.Request.Method, x.Request.URL, x.Request.Body
			}
			if want := cmp.Or(c.url, "/v1/stream"); url != want {
				t.Fatalf("recorded URL %q, want %q", url, want)
			}
			_, addr := startSeam(t, `on http://(\S+)`, "serve", "--listen", "127.0.0.1:0", "--speed", "0", capture)
			req, _ := http.NewRequest(method, "http://"+addr+url, bytes.NewReader(reqBody))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			want, _ := os.ReadFile(filepath.Join(fixturesDir, "providers", c.body))
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), c.ct) || !bytes.Equal(got, want) {
				t.Fatalf("served %d %q, %d bytes; want 200 %q and the %d recorded bytes\n%.300s", resp.StatusCode, resp.Header.Get("Content-Type"), len(got), c.ct, len(want), got)
			}
		})
	}
}
