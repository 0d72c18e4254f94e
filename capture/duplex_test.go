package capture_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/seam-dev/seam/tape"
)

// TestResponseBeforeRequestBodyEnds: an upstream may start streaming before
// it has read the whole request body (the proxy then writes the response
// headers to the client while the transport is still sending the body). The
// stream must still complete, the upstream must get every request byte, and
// the recorded request body must be whole.
func TestResponseBeforeRequestBodyEnds(t *testing.T) {
	body := bytes.Repeat([]byte(`{"role":"user","content":"a long conversation"},`), 40000) // ~1.9 MB
	got := make(chan int, 1)
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"first\":true}\n\n")
		w.(http.Flusher).Flush()
		n, _ := io.Copy(io.Discard, req.Body)
		got <- int(n)
		for i := range 5 {
			fmt.Fprintf(w, "data: {\"i\":%d}\n\n", i)
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}), nil)
	resp, err := http.Post(r.front.URL+"/v1/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	read, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("stream cut: %v after %q", err, read)
	}
	if n := <-got; n != len(body) {
		t.Errorf("upstream got %d request bytes, want %d", n, len(body))
	}
	x := r.finish().Exchanges[0]
	if o := x.Client.End.Outcome; o != tape.Complete {
		t.Errorf("outcome %s (%s)", o, x.Client.End.Error)
	}
	if !bytes.Equal(x.Request.Body, body) || x.Request.BodyTruncated {
		t.Errorf("recorded request body: %d bytes, truncated=%v", len(x.Request.Body), x.Request.BodyTruncated)
	}
}
