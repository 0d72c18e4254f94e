package record_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"testing"
	"time"

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

// TestAnswerWithoutReadingRequestBody: the handler can end before anything
// has read the request body: the upstream was unreachable, or it rejected
// the request (413, 401, 500) without reading it. Under full duplex net/http
// then reads the rest of the body itself after the handler returns and
// panics on the next request ("invalid concurrent Body.Read call"), killing
// a kept-alive connection. Every answer must arrive whole on one reused
// connection, the server must log nothing, and each recorded request must
// keep its whole body.
func TestAnswerWithoutReadingRequestBody(t *testing.T) {
	reject := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		io.WriteString(w, `{"error":{"message":"too large"}}`)
	})
	for _, tc := range []struct {
		name     string
		upstream http.Handler
		status   int
		up, cl   tape.Outcome
	}{
		{"rejected unread", reject, http.StatusRequestEntityTooLarge, tape.Complete, tape.Complete},
		{"unreachable", nil, http.StatusBadGateway, tape.UpstreamError, tape.UpstreamError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := bytes.Repeat([]byte("x"), 100<<10)
			r := newRig(t, tc.upstream, nil)
			const n = 5
			client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
			reused := 0
			for i := range n {
				trace := &httptrace.ClientTrace{GotConn: func(c httptrace.GotConnInfo) {
					if c.Reused {
						reused++
					}
				}}
				req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace),
					"POST", r.front.URL+"/v1/chat/completions", bytes.NewReader(body))
				resp, err := client.Do(req)
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				got, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != tc.status || !bytes.Contains(got, []byte(`"error"`)) {
					t.Fatalf("request %d: %d %q %v", i, resp.StatusCode, got, err)
				}
			}
			if reused != n-1 {
				t.Errorf("%d of %d requests reused the connection, want %d", reused, n, n-1)
			}
			c := r.finish()
			if len(c.Exchanges) != n {
				t.Fatalf("%d exchanges recorded, want %d", len(c.Exchanges), n)
			}
			for _, x := range c.Exchanges {
				if up, cl := outcomes(x); up != tc.up || cl != tc.cl {
					t.Errorf("exchange %d: outcomes %s/%s, want %s/%s", x.Ex, up, cl, tc.up, tc.cl)
				}
				if len(x.Request.Body) != len(body) || x.Request.BodyTruncated {
					t.Errorf("exchange %d: recorded %d request bytes (truncated=%v), want %d", x.Ex, len(x.Request.Body), x.Request.BodyTruncated, len(body))
				}
			}
		})
	}
}

// TestExpectContinue: a client that sends "Expect: 100-continue" (curl does
// for large bodies) sends its body only when told to. When the upstream
// takes the body the proxy asks for it and the exchange completes; when the
// upstream cannot be reached the client gets the 502 at once, without
// sending a body nobody will read, and the proxy does not wait for one.
func TestExpectContinue(t *testing.T) {
	echo := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		n, _ := io.Copy(io.Discard, req.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"read":%d}`, n)
	})
	body := bytes.Repeat([]byte("y"), 64<<10)
	for _, tc := range []struct {
		name     string
		upstream http.Handler
		status   int
		recorded int
	}{
		{"upstream reads the body", echo, http.StatusOK, len(body)},
		{"unreachable", nil, http.StatusBadGateway, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, tc.upstream, nil)
			client := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Minute}}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a hang guard, not a measurement
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "POST", r.front.URL+"/v1/chat/completions", bytes.NewReader(body))
			req.Header.Set("Expect", "100-continue")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != tc.status {
				t.Fatalf("%d %q %v", resp.StatusCode, got, err)
			}
			if tc.status == http.StatusOK && string(got) != fmt.Sprintf(`{"read":%d}`, len(body)) {
				t.Errorf("upstream answered %s, want it to have read %d bytes", got, len(body))
			}
			x := r.finish().Exchanges[0]
			if len(x.Request.Body) != tc.recorded {
				t.Errorf("recorded %d request bytes, want %d", len(x.Request.Body), tc.recorded)
			}
		})
	}
}
