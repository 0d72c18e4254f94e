package record_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seam-dev/seam/tape"
)

// gateway stands for a LiteLLM-style proxy under test: it forwards each
// request with only the headers it knows (seam's exchange header is not
// one of them), transformed by rewrite, and relays the answer unchanged.
// It holds the requests until n have come, then sends them upstream in the
// reverse order, so arrival order at the back leg says nothing.
func gateway(back string, n int, rewrite func([]byte) []byte) http.Handler {
	var mu sync.Mutex
	var waiting []chan struct{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		turn := make(chan struct{})
		mu.Lock()
		waiting = append(waiting, turn)
		if len(waiting) == n {
			go func(ts []chan struct{}) {
				for i := len(ts) - 1; i >= 0; i-- {
					close(ts[i])
					time.Sleep(30 * time.Millisecond)
				}
			}(waiting)
			waiting = nil
		}
		mu.Unlock()
		<-turn
		out, _ := http.NewRequestWithContext(r.Context(), "POST", back+r.URL.Path, strings.NewReader(string(rewrite(body))))
		for _, h := range []string{"Content-Type", "Authorization"} {
			if v := r.Header.Get(h); v != "" {
				out.Header.Set(h, v)
			}
		}
		resp, err := http.DefaultTransport.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	})
}

// chatRequest is a client's request asking about topic, in a conversation
// all the parallel requests share the start of.
func chatRequest(topic string) string {
	b, _ := json.Marshal(map[string]any{
		"model": "gpt-4o", "stream": true,
		"messages": []map[string]string{
			{"role": "system", "content": "You are a helpful assistant who answers briefly and precisely."},
			{"role": "user", "content": "Tell me one fact about " + topic + ", please, in a sentence."},
		},
	})
	return string(b)
}

// echoAPI streams an answer naming the last user message it was asked.
func echoAPI() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Messages []struct{ Content string } }
		json.NewDecoder(r.Body).Decode(&req)
		last := req.Messages[len(req.Messages)-1].Content
		w.Header().Set("Content-Type", "text/event-stream")
		for _, part := range []string{"About: ", last} {
			b, _ := json.Marshal(part)
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%s}}]}\n\n", b)
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	})
}

// TestSandwichPairsByContent: six parallel requests through a proxy that
// drops seam's exchange header and sends them upstream in another order.
// Each back-leg request is filed under the client request it came from,
// whether the proxy passes the body on as it is or rewrites it (another
// model, a system prompt of its own, re-encoded JSON); the capture says
// each was paired by content, and seam says once that the header is gone.
// A proxy whose requests share nothing with the clients' is paired in
// arrival order, and the capture says that was a guess.
func TestSandwichPairsByContent(t *testing.T) {
	topics := []string{"otters", "volcanoes", "the Baltic Sea", "bees", "glass", "Saturn's rings"}
	for _, tc := range []struct {
		name    string
		rewrite func([]byte) []byte
		paired  string
	}{
		{"unchanged", func(b []byte) []byte { return b }, tape.PairedContent},
		{"rewritten", func(b []byte) []byte {
			var req map[string]any
			json.Unmarshal(b, &req)
			req["model"] = "azure/gpt-4o-deployment"
			req["metadata"] = map[string]any{"gateway": "litellm", "trace": "abc123"}
			msgs := req["messages"].([]any)
			req["messages"] = append([]any{map[string]any{"role": "system", "content": "Gateway policy: be safe."}}, msgs...)
			out, _ := json.MarshalIndent(req, "", "  ")
			return out
		}, tape.PairedContent},
		{"unrelated", func(b []byte) []byte {
			return []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"x"}]}`)
		}, tape.PairedOrder},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := httptest.NewServer(echoAPI())
			defer api.Close()
			apiURL, _ := url.Parse(api.URL)
			var notices []string
			var mu sync.Mutex
			rig := newSandwich(t, apiURL, func(back string) http.Handler { return gateway(back, len(topics), tc.rewrite) }, nil)
			rig.numbering.Notify = func(msg string) { mu.Lock(); notices = append(notices, msg); mu.Unlock() }
			var wg sync.WaitGroup
			for _, topic := range topics {
				wg.Go(func() {
					resp, err := http.Post(rig.frontSrv.URL+"/v1/chat/completions", "application/json", strings.NewReader(chatRequest(topic)))
					if err != nil {
						t.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				})
			}
			wg.Wait()
			c := rig.finish(t)
			if tc.paired == tape.PairedOrder {
				// Nothing to go by: the back legs are taken in arrival
				// order, and the guesses may leave a later one with no
				// client request waiting; each says so.
				for _, x := range c.Exchanges {
					if u := x.UpstreamRequest; u != nil && u.Paired != tape.PairedOrder && u.Paired != tape.PairedNone {
						t.Errorf("exchange %d paired %q, want order or none", x.Ex, u.Paired)
					}
				}
				return
			}
			if len(c.Exchanges) != len(topics) {
				t.Fatalf("%d exchanges", len(c.Exchanges))
			}
			misfiled := 0
			for _, x := range c.Exchanges {
				if x.UpstreamRequest == nil || x.UpstreamRequest.Paired != tc.paired {
					t.Errorf("exchange %d: upstream request %+v, want paired %q", x.Ex, x.UpstreamRequest, tc.paired)
					continue
				}
				topic := topics[slices.IndexFunc(topics, func(s string) bool { return strings.Contains(string(x.Request.Body), s) })]
				if !strings.Contains(string(x.Client.Body()), topic) {
					t.Fatalf("exchange %d: the proxy answered the client with %q", x.Ex, x.Client.Body())
				}
				if !strings.Contains(string(x.Upstream.Body()), topic) {
					misfiled++
				}
			}
			if misfiled > 0 {
				t.Errorf("%d of %d back legs filed under another client's request", misfiled, len(topics))
			}
			if len(notices) != 1 || !strings.Contains(notices[0], "paired with the clients' by request content") {
				t.Errorf("notices %q, want one", notices)
			}
		})
	}
}
