package record_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/tape"
)

func post(t *testing.T, ctx context.Context, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func outcomes(x *tape.Exchange) (up, client tape.Outcome) {
	if x.Upstream.End != nil {
		up = x.Upstream.End.Outcome
	}
	if x.Client.End != nil {
		client = x.Client.End.Outcome
	}
	return up, client
}

func TestOutcomes(t *testing.T) {
	done := "data: {\"choices\":[]}\n\ndata: [DONE]\n\n"
	tests := []struct {
		name       string
		upstream   func(hold chan struct{}) http.Handler // nil: unreachable
		client     func(t *testing.T, r *rig)
		modify     func(*record.Options)
		up, cl     tape.Outcome
		status     int
		wantErrSub string
	}{
		{
			name:     "complete",
			upstream: func(chan struct{}) http.Handler { return sseHandler([][]byte{[]byte(done)}, nil) },
			client:   readAll,
			up:       tape.Complete, cl: tape.Complete, status: 200,
		},
		{
			name: "anthropic message_stop is terminal",
			upstream: func(chan struct{}) http.Handler {
				return sseHandler([][]byte{[]byte("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")}, nil)
			},
			client: readAll,
			up:     tape.Complete, cl: tape.Complete, status: 200,
		},
		{
			name: "responses completed is terminal without event lines",
			upstream: func(chan struct{}) http.Handler {
				return sseHandler([][]byte{[]byte("data: {\"type\": \"response.completed\",\"response\":{}}\n\n")}, nil)
			},
			client: readAll,
			up:     tape.Complete, cl: tape.Complete, status: 200,
		},
		{
			name: "closed after done",
			upstream: func(hold chan struct{}) http.Handler {
				return sseHandler([][]byte{[]byte("data: {\"a\":1}\n\n"), []byte("data: [DONE]\n\n")}, hold)
			},
			client: func(t *testing.T, r *rig) { readUntilThenClose(t, r, "data: [DONE]") },
			up:     tape.ClientClosedAfterDone, cl: tape.ClientClosedAfterDone, status: 200,
		},
		{
			name: "client aborted mid-stream",
			upstream: func(hold chan struct{}) http.Handler {
				return sseHandler([][]byte{[]byte("data: {\"a\":1}\n\n")}, hold)
			},
			client: func(t *testing.T, r *rig) { readUntilThenClose(t, r, "data: {\"a\":1}") },
			up:     tape.ClientAborted, cl: tape.ClientAborted, status: 200,
		},
		{
			name: "upstream reset mid-stream",
			upstream: func(chan struct{}) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
					w.Header().Set("Content-Type", "text/event-stream")
					io.WriteString(w, "data: {\"a\":1}\n\n")
					w.(http.Flusher).Flush()
					panic(http.ErrAbortHandler) // the server drops the connection
				})
			},
			client: readAll,
			up:     tape.UpstreamError, cl: tape.UpstreamError, status: 200,
			wantErrSub: "unexpected EOF",
		},
		{
			name: "truncated: EOF without a terminal event",
			upstream: func(chan struct{}) http.Handler {
				return sseHandler([][]byte{[]byte("data: {\"a\":1}\n\n")}, nil)
			},
			client: readAll,
			up:     tape.Truncated, cl: tape.Truncated, status: 200,
		},
		{
			name:   "upstream unreachable",
			client: readAll,
			up:     tape.UpstreamError, cl: tape.UpstreamError, status: 502,
			wantErrSub: "connection refused",
		},
		{
			name: "upstream timeout",
			upstream: func(hold chan struct{}) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
					select { // never answers in time
					case <-hold:
					case <-req.Context().Done():
					}
				})
			},
			modify: func(o *record.Options) {
				o.Transport = &http.Transport{ResponseHeaderTimeout: 50 * time.Millisecond}
			},
			client: readAll,
			up:     tape.Timeout, cl: tape.Timeout, status: 502,
		},
		{
			name: "non-SSE JSON",
			upstream: func(chan struct{}) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					io.WriteString(w, `{"id":"chatcmpl-1","choices":[{"message":{"content":"hi"}}]}`)
				})
			},
			client: readAll,
			up:     tape.Complete, cl: tape.Complete, status: 200,
		},
		{
			name: "429 with a JSON error",
			upstream: func(chan struct{}) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					w.Header().Set("Retry-After", "2")
					w.WriteHeader(429)
					io.WriteString(w, `{"error":{"message":"rate limited"}}`)
				})
			},
			client: readAll,
			up:     tape.Complete, cl: tape.Complete, status: 429,
		},
		{
			name: "500",
			upstream: func(chan struct{}) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
					http.Error(w, "boom", 500)
				})
			},
			client: readAll,
			up:     tape.Complete, cl: tape.Complete, status: 500,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			hold := make(chan struct{})
			defer close(hold)
			var up http.Handler
			if tc.upstream != nil {
				up = tc.upstream(hold)
			}
			r := newRig(t, up, tc.modify)
			tc.client(t, r)
			c := r.finish()
			if len(c.Exchanges) != 1 {
				t.Fatalf("%d exchanges recorded, want 1", len(c.Exchanges))
			}
			x := c.Exchanges[0]
			if x.Request == nil || x.Request.Method != "POST" || x.Request.URL != "/v1/chat/completions" {
				t.Errorf("request line %+v", x.Request)
			}
			gotUp, gotCl := outcomes(x)
			if gotUp != tc.up || gotCl != tc.cl {
				t.Errorf("outcomes upstream=%s client=%s, want %s and %s", gotUp, gotCl, tc.up, tc.cl)
			}
			if x.Client.Response == nil || x.Client.Response.Status != tc.status {
				t.Errorf("client response %+v, want status %d", x.Client.Response, tc.status)
			}
			if tc.wantErrSub != "" && !strings.Contains(x.Upstream.End.Error, tc.wantErrSub) {
				t.Errorf("upstream end error %q, want it to mention %q", x.Upstream.End.Error, tc.wantErrSub)
			}
			checkOffsets(t, x)
			if r.mu.Lock(); len(r.sums) != 1 || r.sums[0].Outcome != tc.cl {
				t.Errorf("summaries %+v", r.sums)
			}
			r.mu.Unlock()
		})
	}
}

func readAll(t *testing.T, r *rig) {
	resp := post(t, context.Background(), r.front.URL+"/v1/chat/completions", `{"stream":true}`)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// readUntilThenClose reads the stream until a line starting with prefix,
// then hangs up, as SDKs do after [DONE].
func readUntilThenClose(t *testing.T, r *rig, prefix string) {
	ctx, cancel := context.WithCancel(context.Background())
	resp := post(t, ctx, r.front.URL+"/v1/chat/completions", `{"stream":true}`)
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if strings.HasPrefix(line, prefix) {
			break
		}
		if err != nil {
			t.Fatalf("stream ended before %q: %v", prefix, err)
		}
	}
	cancel()
	resp.Body.Close()
}

// TestUnreachableBody: the 502 a client gets when the upstream is down says
// what failed, as JSON an SDK shows, and is recorded as the client side.
func TestUnreachableBody(t *testing.T) {
	r := newRig(t, nil, nil)
	resp := post(t, context.Background(), r.front.URL+"/v1/chat/completions", `{}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var e struct {
		Error struct{ Message string } `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil || !strings.Contains(e.Error.Message, "connection refused") || !strings.Contains(e.Error.Message, "seam: upstream") {
		t.Errorf("502 body %s", body)
	}
	x := r.finish().Exchanges[0]
	if string(x.Client.Body()) != string(body) {
		t.Errorf("recorded client body %q, client read %q", x.Client.Body(), body)
	}
	if x.Upstream.Response != nil {
		t.Errorf("an upstream response was recorded for an unreachable upstream")
	}
}

// TestClientLeavingAfterLastByte: a client that has the whole body (its
// Content-Length says so) may close its connection before the proxy has
// read the upstream's end; the request context is then cancelled, but the
// upstream ended its body and the client got all of it: both sides are
// complete, not client_aborted. (The tap holds the proxy between its
// write to the client and its next read until the client has gone.)
func TestClientLeavingAfterLastByte(t *testing.T) {
	const body = `{"id":"chatcmpl-1","choices":[{"message":{"content":"hi"}}]}`
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}), nil)
	gone := make(chan struct{})
	record.SetTestTap(r.rec, func(where string, p []byte) {
		if where == "client" {
			<-gone
			time.Sleep(100 * time.Millisecond) // the server sees the connection close
		}
	})
	conn, err := net.Dial("tcp", r.front.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	if err != nil || string(got) != body {
		t.Fatalf("client read %q, %v", got, err)
	}
	conn.Close()
	close(gone)
	x := r.finish().Exchanges[0]
	if up, cl := outcomes(x); up != tape.Complete || cl != tape.Complete {
		t.Errorf("upstream %s, client %s, want complete on both", up, cl)
	}
}

// TestUpstreamClosesBeforeAnswer: an upstream that closes the connection
// without answering fails the exchange (upstream_error, 502 to the client),
// although the transport's error is an EOF.
func TestUpstreamClosesBeforeAnswer(t *testing.T) {
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}), nil)
	resp, err := http.Post(r.front.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("status %d, want 502", resp.StatusCode)
	}
	x := r.finish().Exchanges[0]
	if up, cl := outcomes(x); up != tape.UpstreamError || cl != tape.UpstreamError {
		t.Errorf("upstream %s, client %s (%+v), want upstream_error on both", up, cl, x.Upstream.End)
	}
}
