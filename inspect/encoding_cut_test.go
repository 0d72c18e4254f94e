package inspect

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"

	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/tape"
)

// compressor is a Content-Encoding a server streams in: each event is
// flushed as it is written, and Close writes the last block.
type compressor struct {
	name   string
	writer func(io.Writer) flushCloser
	reader func(io.Reader) (io.Reader, error)
}

type flushCloser interface {
	io.WriteCloser
	Flush() error
}

var compressors = []compressor{
	{"br", func(w io.Writer) flushCloser { return brotli.NewWriter(w) },
		func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil }},
	{"gzip", func(w io.Writer) flushCloser { return gzip.NewWriter(w) },
		func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }},
}

// sseEvents splits a recorded SSE body into its event blocks, each with
// its blank line.
func sseEvents(body []byte) [][]byte {
	var out [][]byte
	for len(body) > 0 {
		i := bytes.Index(body, []byte("\n\n"))
		if i < 0 {
			return append(out, body)
		}
		out = append(out, body[:i+2])
		body = body[i+2:]
	}
	return out
}

// compressingUpstream serves body as a streaming server compresses it:
// one flush per event, so a client decodes every event as it comes. It
// sends the events up to the first line starting with stop, then waits
// for release (the client has read them) before it sends the rest and
// the compressor's last block, as a server still producing its answer or
// finishing its response does. A client that hangs up at stop never gets
// them.
func compressingUpstream(co compressor, body []byte, stop string, release <-chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", co.name)
		zw := co.writer(w)
		held := false
		for _, ev := range sseEvents(body) {
			if held {
				zw.Write(ev)
				continue
			}
			zw.Write(ev)
			zw.Flush()
			w.(http.Flusher).Flush()
			if bytes.HasPrefix(ev, []byte(stop)) || bytes.Contains(ev, []byte("\n"+stop)) {
				held = true
				select {
				case <-release:
				case <-req.Context().Done():
					return
				}
			}
		}
		zw.Close()
	})
}

// recordCompressed records one exchange through the recording proxy: the
// upstream streams body compressed with co, and the client, an SDK that
// asks for co, reads the decoded events until a line starting with stop,
// then hangs up before the compressor's last block.
func recordCompressed(t *testing.T, co compressor, url0 string, body []byte, stop string) *tape.Capture {
	t.Helper()
	release := make(chan struct{})
	defer close(release)
	up := httptest.NewServer(compressingUpstream(co, body, stop, release))
	defer up.Close()
	upURL, _ := url.Parse(up.URL)
	var buf bytes.Buffer
	w := tape.NewWriter(&buf, tape.WriterOptions{})
	w.Header(tape.Header{V: tape.Version, Seam: "test", ID: t.Name(), Upstream: up.URL, Engine: tape.Engine{Profile: "passthrough"}})
	rec, err := record.New(record.Options{Upstream: upURL, Writer: w})
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(rec)
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, "POST", front.URL+url0, strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept-Encoding", co.name)
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := co.reader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewReader(dec)
	for {
		line, err := lines.ReadString('\n')
		if strings.HasPrefix(line, stop) {
			break
		}
		if err != nil {
			t.Fatalf("stream ended before %q: %v", stop, err)
		}
	}
	cancel()
	resp.Body.Close()
	front.Close()
	rec.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := tape.Read(bytes.NewReader(buf.Bytes()), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCompressedCutAfterDone records real Cohere and Mistral streams,
// br- and gzip-compressed by the upstream, through the recording proxy
// with a client that hangs up as soon as it has read [DONE], before the
// compressor's last block: the capture says client_closed_after_done and
// both bodies end inside their compressed stream. Nothing of the answer
// is missing, so inspect says so at info and warns of nothing; a client
// that hangs up before the terminal event does get the truncation
// warning.
func TestCompressedCutAfterDone(t *testing.T) {
	t.Parallel()
	streams := []struct{ file, url string }{
		{"cohere/cohere-v2-stream-text.sse", "/v2/chat"},
		{"mistral/mistral-stream-text.sse", "/v1/chat/completions"},
	}
	for _, st := range streams {
		body, err := os.ReadFile(filepath.Join("../fixtures/providers", st.file))
		if err != nil {
			t.Fatal(err)
		}
		for _, co := range compressors {
			t.Run(filepath.Base(st.file)+"/"+co.name, func(t *testing.T) {
				t.Parallel()
				c := recordCompressed(t, co, st.url, body, "data: [DONE]")
				x := c.Exchanges[0]
				for _, s := range []tape.Side{tape.Upstream, tape.Client} {
					if o := x.Side(s).End.Outcome; o != tape.ClientClosedAfterDone {
						t.Fatalf("%s side outcome %s, want %s", s, o, tape.ClientClosedAfterDone)
					}
				}
				rep := Inspect(c, Options{}).Exchanges[0]
				cut := 0
				for _, f := range rep.Findings {
					if f.Severity > Info {
						t.Errorf("%s %s: %s", f.Severity, f.ID, f.Message)
					}
					if f.ID == "encoding.cut-after-end" {
						cut++
					}
				}
				if cut != 2 {
					t.Errorf("%d encoding.cut-after-end findings, want one per side: %s", cut, findingIDs(rep.Findings))
				}
				if !strings.Contains(rep.Sides[1].Message.Text(), " ") || rep.Sides[1].Message.Text() != rep.Sides[0].Message.Text() {
					t.Errorf("client text %q, upstream %q", rep.Sides[1].Message.Text(), rep.Sides[0].Message.Text())
				}

				// The same stream, the client gone after the first event
				// that carries text: truncated, and said so.
				stop := `data: {"type":"content-delta"`
				if strings.Contains(st.url, "completions") {
					stop = `data: {"id"`
				}
				c = recordCompressed(t, co, st.url, body, stop)
				if o := c.Exchanges[0].Client.End.Outcome; o != tape.ClientAborted {
					t.Fatalf("client side outcome %s, want %s", o, tape.ClientAborted)
				}
				fs := Inspect(c, Options{}).Exchanges[0].Findings
				var msg string
				for _, f := range fs {
					if f.ID == "encoding.cut-after-end" {
						t.Errorf("a body cut before its terminal event: %s", f.Message)
					}
					if f.ID == "encoding.cut" && f.Pointer.Side == tape.Client {
						msg = f.Message
					}
				}
				if !strings.Contains(msg, "cut inside its "+co.name+" stream") || !strings.Contains(msg, "truncated") {
					t.Errorf("client encoding.cut %q; findings %s", msg, findingIDs(fs))
				}
			})
		}
	}
}
