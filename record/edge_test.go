package record_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/tape"
)

// TestEdgeStreams: streams that break naive proxies pass byte for byte and
// end with the right outcome.
func TestEdgeStreams(t *testing.T) {
	huge := "data: {\"choices\":[{\"delta\":{\"content\":\"" + strings.Repeat("x", 8<<20) + "\"}}]}\n\ndata: [DONE]\n\n"
	split := []byte("data: {\"choices\":[{\"delta\":{\"content\":\"caf\xc3")
	tests := []struct {
		name        string
		contentType string
		parts       []string
		outcome     tape.Outcome
	}{
		{"an 8 MiB single data line", "text/event-stream", []string{huge}, tape.Complete},
		{"a rune split across writes", "text/event-stream", []string{string(split), "\xa9\"}}]}\n\n", "data: [DONE]\n\n"}, tape.Complete},
		{"invalid UTF-8 in a delta", "text/event-stream", []string{"data: {\"x\":\"\xff\xfe\"}\n\ndata: [DONE]\n\n"}, tape.Complete},
		{"malformed JSON in an event", "text/event-stream", []string{"data: {\"choices\":[{\"delta\"\n\ndata: [DONE]\n\n"}, tape.Complete},
		{"an SSE body labelled JSON", "application/json", []string{"data: {\"a\":1}\n\n"}, tape.Complete},
		{"CRLF line endings", "text/event-stream; charset=utf-8", []string{"data: {\"a\":1}\r\n\r\ndata: [DONE]\r\n\r\n"}, tape.Complete},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var want []byte
			for _, p := range tc.parts {
				want = append(want, p...)
			}
			r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				for _, p := range tc.parts {
					io.WriteString(w, p)
					w.(http.Flusher).Flush()
				}
			}), nil)
			resp, err := http.Post(r.front.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			x := r.finish().Exchanges[0]
			if !bytes.Equal(got, want) || !bytes.Equal(x.Upstream.Body(), want) || !bytes.Equal(x.Client.Body(), want) {
				t.Fatalf("bytes differ: client read %d, recorded %d/%d, sent %d", len(got), len(x.Upstream.Body()), len(x.Client.Body()), len(want))
			}
			if x.Client.End.Outcome != tc.outcome || x.Upstream.End.Outcome != tc.outcome {
				t.Errorf("outcomes %s/%s, want %s", x.Upstream.End.Outcome, x.Client.End.Outcome, tc.outcome)
			}
		})
	}
}

// TestHTTP2Upstream: an HTTPS upstream speaking HTTP/2 is proxied and
// recorded like any other.
func TestHTTP2Upstream(t *testing.T) {
	up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.ProtoMajor != 2 {
			http.Error(w, "want HTTP/2, got "+req.Proto, 400)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"a\":1}\n\n")
		w.(http.Flusher).Flush()
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	up.EnableHTTP2 = true
	up.StartTLS()
	defer up.Close()
	upURL, _ := url.Parse(up.URL)
	transport := up.Client().Transport.(*http.Transport).Clone()
	transport.ForceAttemptHTTP2 = true

	var buf bytes.Buffer
	w := tape.NewWriter(&buf, tape.WriterOptions{})
	w.Header(tape.Header{V: tape.Version, Seam: "test"})
	rec, err := record.New(record.Options{Upstream: upURL, Writer: w, Transport: transport})
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(rec)
	resp, err := http.Post(front.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	front.Close()
	rec.Wait()
	w.Close()
	c, err := tape.Read(&buf, "h2")
	if err != nil {
		t.Fatal(err)
	}
	x := c.Exchanges[0]
	if resp.StatusCode != 200 || string(got) != "data: {\"a\":1}\n\ndata: [DONE]\n\n" {
		t.Fatalf("status %d body %q", resp.StatusCode, got)
	}
	if x.Upstream.End.Outcome != tape.Complete || x.Client.End.Outcome != tape.Complete {
		t.Errorf("outcomes %s/%s", x.Upstream.End.Outcome, x.Client.End.Outcome)
	}
}

// TestSlowClient: a client that reads slower than the upstream writes gets
// every byte; the proxy applies backpressure instead of buffering.
func TestSlowClient(t *testing.T) {
	var parts [][]byte
	for i := range 200 {
		parts = append(parts, []byte("data: {\"i\":"+strings.Repeat("7", i%50+1)+"}\n\n"))
	}
	parts = append(parts, []byte("data: [DONE]\n\n"))
	r := newRig(t, sseHandler(parts, nil), nil)
	resp, err := http.Post(r.front.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	buf := make([]byte, 7) // tiny reads
	for {
		n, err := resp.Body.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			break
		}
	}
	resp.Body.Close()
	x := r.finish().Exchanges[0]
	if !bytes.Equal(got, bytes.Join(parts, nil)) || !bytes.Equal(x.Client.Body(), got) {
		t.Fatalf("slow client got %d bytes, want %d", len(got), len(bytes.Join(parts, nil)))
	}
}
