package replay_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/tape"
)

func TestServerPlaysMatchedExchange(t *testing.T) {
	c, err := fixtures.Load("openai-responses-tool-then-text.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(replay.NewServer([]*tape.Capture{c}, replay.ServerOptions{}))
	defer srv.Close()
	for _, x := range c.Exchanges {
		// Whitespace in the JSON body does not matter to matching.
		body := strings.Replace(string(x.Request.Body), `"model":`, `"model" : `, 1)
		resp, err := http.Post(srv.URL+x.Request.URL, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !bytes.Equal(got, x.Upstream.Body()) {
			t.Errorf("exchange %d: served %d bytes, recorded %d", x.Ex, len(got), len(x.Upstream.Body()))
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
			t.Errorf("content-type %q", ct)
		}
	}
}

func TestServerMissNamesClosest(t *testing.T) {
	t.Parallel()
	c, _ := fixtures.Load("openai-chat-tools.ndjson")
	srv := httptest.NewServer(replay.NewServer([]*tape.Capture{c}, replay.ServerOptions{}))
	defer srv.Close()
	for path, want := range map[string]string{
		"/v1/chat/completions": `closest is exchange 1 (other model, no messages vs recorded 2); model \"other\" vs recorded \"gpt-4o-2024-08-06\"`,
		"/v1/messages":         "no exchange has that endpoint; exchange 1 is POST /v1/chat/completions",
	} {
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(`{"model":"other"}`))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 404 || !strings.Contains(string(got), want) || !strings.Contains(string(got), `"type":"seam_no_match"`) {
			t.Errorf("%s: %d %s, want 404 saying %s", path, resp.StatusCode, got, want)
		}
	}
}

// TestServerMatchesReorderedRealRequest sends each recorded request of real
// fixtures as another client would: keys in another order, stream_options and
// user changed, and (for the Responses tool turn) a different call id used
// consistently. Each gets the recorded upstream bytes.
func TestServerMatchesReorderedRealRequest(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"openai-chat-tools.ndjson", "openai-responses-tool-then-text.ndjson", "anthropic-tool-use.ndjson"} {
		c, err := fixtures.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(replay.NewServer([]*tape.Capture{c}, replay.ServerOptions{}))
		defer srv.Close()
		for _, x := range c.Exchanges {
			var doc map[string]any
			if err := json.Unmarshal(bytes.ReplaceAll(x.Request.Body, []byte("call_kL0PCQV7M2WMoVX8V8OtYSAL"), []byte("call_other")), &doc); err != nil {
				t.Fatal(err)
			}
			doc["stream_options"] = map[string]any{"include_usage": false}
			doc["user"] = "someone-else"
			body, _ := json.Marshal(doc) // sorted keys: another order than recorded
			if bytes.Equal(body, x.Request.Body) {
				t.Fatal("the request was not changed")
			}
			resp, err := http.Post(srv.URL+x.Request.URL, "application/json", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != x.Upstream.Response.Status || !bytes.Equal(got, x.Upstream.Body()) {
				t.Errorf("%s exchange %d: %d, %d bytes, want the recorded %d bytes: %.300s", name, x.Ex, resp.StatusCode, len(got), len(x.Upstream.Body()), got)
			}
		}
	}
}

// synthetic returns a capture whose exchanges answer the given request
// bodies, in order, with bodies "answer 1", "answer 2", ...
func synthetic(bodies ...string) *tape.Capture {
	c := &tape.Capture{Name: "synthetic.ndjson"}
	for i, b := range bodies {
		ex := i + 1
		c.Exchanges = append(c.Exchanges, &tape.Exchange{
			Ex:      ex,
			Request: &tape.Request{Ex: ex, Method: "POST", URL: "/v1/chat/completions", Body: []byte(b)},
			Upstream: tape.SideData{
				Response: &tape.Response{Ex: ex, Side: tape.Upstream, Status: 200, Headers: tape.Headers{"content-type": {"text/event-stream"}}},
				Chunks:   []tape.Chunk{{Ex: ex, Side: tape.Upstream, Data: []byte(fmt.Sprintf("answer %d", ex))}},
			},
		})
	}
	return c
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(got)
}

// TestServerAnswersDuplicatesInOrder: the same request recorded twice (a
// retry, a regenerate) answers with the first recording, then the second,
// then the second again; another request is unaffected.
func TestServerAnswersDuplicatesInOrder(t *testing.T) {
	t.Parallel()
	hi := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	hiAgain := `{"messages":[{"content":"hi","role":"user"}],"user":"retry","model":"m"}`
	bye := `{"model":"m","messages":[{"role":"user","content":"bye"}]}`
	srv := httptest.NewServer(replay.NewServer([]*tape.Capture{synthetic(hi, bye, hiAgain)}, replay.ServerOptions{}))
	defer srv.Close()
	for i, step := range []struct{ body, want string }{
		{hi, "answer 1"}, {bye, "answer 2"}, {hi, "answer 3"}, {hiAgain, "answer 3"}, {bye, "answer 2"},
	} {
		if code, got := post(t, srv.URL, step.body); code != 200 || got != step.want {
			t.Errorf("request %d: %d %q, want %q", i+1, code, got, step.want)
		}
	}
}

// TestServerModes runs each mode against a stand-in upstream behind the Miss
// handler, counting what reaches it and checking the body arrives intact.
func TestServerModes(t *testing.T) {
	t.Parallel()
	hit := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	miss := `{"model":"m","messages":[{"role":"user","content":"something new"}]}`
	tests := []struct {
		mode       replay.Mode
		empty      bool // no exchanges loaded
		failed     bool // exchanges loaded, none with an upstream response
		noUpstream bool
		hit, miss  string // expected answers
		upstream   int    // requests that reached the upstream
	}{
		{mode: "", hit: "answer 1", miss: "404", upstream: 0},
		{mode: replay.ModeNone, hit: "answer 1", miss: "404", upstream: 0},
		{mode: replay.ModeOnce, hit: "answer 1", miss: "404", upstream: 0},
		{mode: replay.ModeOnce, empty: true, hit: "upstream:" + hit, miss: "upstream:" + miss, upstream: 2},
		// A capture whose exchanges all failed upstream exists: once replays
		// it strictly rather than recording over it (or, with no upstream,
		// blaming mode all).
		{mode: replay.ModeOnce, failed: true, hit: "404", miss: "404", upstream: 0},
		{mode: replay.ModeOnce, failed: true, noUpstream: true, hit: "404", miss: "404", upstream: 0},
		{mode: replay.ModeNewEpisodes, hit: "answer 1", miss: "upstream:" + miss, upstream: 1},
		{mode: replay.ModeNewEpisodes, noUpstream: true, hit: "answer 1", miss: "502", upstream: 0},
		{mode: replay.ModeAll, hit: "upstream:" + hit, miss: "upstream:" + miss, upstream: 2},
		{mode: replay.ModePassthrough, hit: "upstream:" + hit, miss: "upstream:" + miss, upstream: 2},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%s/empty=%v/failed=%v/upstream=%v", tt.mode, tt.empty, tt.failed, !tt.noUpstream)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var reached atomic.Int64
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				reached.Add(1)
				b, _ := io.ReadAll(r.Body)
				fmt.Fprintf(w, "upstream:%s", b)
			}))
			defer up.Close()
			opts := replay.ServerOptions{Mode: tt.mode}
			if !tt.noUpstream {
				u, _ := url.Parse(up.URL)
				opts.Miss = httputil.NewSingleHostReverseProxy(u)
			}
			c := synthetic(hit)
			if tt.empty {
				c = synthetic()
			}
			if tt.failed {
				c.Exchanges[0].Upstream = tape.SideData{}
			}
			srv := httptest.NewServer(replay.NewServer([]*tape.Capture{c}, opts))
			defer srv.Close()
			for _, step := range []struct{ body, want string }{{hit, tt.hit}, {miss, tt.miss}} {
				code, got := post(t, srv.URL, step.body)
				switch step.want {
				case "404", "502":
					if strconv.Itoa(code) != step.want || !strings.Contains(got, `"message":"seam: `) {
						t.Errorf("%.30s: %d %s, want a %s JSON error", step.body, code, got, step.want)
					}
				default:
					if code != 200 || got != step.want {
						t.Errorf("%.30s: %d %q, want %q", step.body, code, got, step.want)
					}
				}
			}
			if n := reached.Load(); n != int64(tt.upstream) {
				t.Errorf("%d requests reached the upstream, want %d", n, tt.upstream)
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	t.Parallel()
	for _, m := range replay.Modes() {
		if got, err := replay.ParseMode(string(m)); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, err)
		}
	}
	if _, err := replay.ParseMode("new-episodes"); err == nil || !strings.Contains(err.Error(), "new_episodes") {
		t.Errorf("ParseMode of an unknown mode: %v, want an error listing the modes", err)
	}
}

// TestServerMissOnTruncatedRecording: a recorded request body the recorder
// cut short can never match; the 404 says so instead of blaming a field.
func TestServerMissOnTruncatedRecording(t *testing.T) {
	t.Parallel()
	full := `{"model":"m","messages":[{"role":"user","content":"a long prompt"}]}`
	c := synthetic(full[:30])
	c.Exchanges[0].Request.BodyTruncated = true
	srv := httptest.NewServer(replay.NewServer([]*tape.Capture{c}, replay.ServerOptions{}))
	defer srv.Close()
	code, got := post(t, srv.URL, full)
	if code != 404 || !strings.Contains(got, "truncated") {
		t.Errorf("%d %s, want a 404 saying the recorded body was truncated", code, got)
	}
}

// TestServerDuplicatesConcurrently: a request recorded three times and sent
// by many clients at once gets each recording once before the last repeats.
func TestServerDuplicatesConcurrently(t *testing.T) {
	t.Parallel()
	hi := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	srv := httptest.NewServer(replay.NewServer([]*tape.Capture{synthetic(hi, hi, hi)}, replay.ServerOptions{}))
	defer srv.Close()
	const n = 16
	answers := make(chan string, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			_, got := post(t, srv.URL, hi)
			answers <- got
		})
	}
	wg.Wait()
	close(answers)
	count := map[string]int{}
	for a := range answers {
		count[a]++
	}
	if count["answer 1"] != 1 || count["answer 2"] != 1 || count["answer 3"] != n-2 {
		t.Errorf("answers %v, want answer 1 and 2 once, answer 3 %d times", count, n-2)
	}
}

// TestServeMatchesHost: one capture of several hosts (a forward-proxy
// recording) answers each host with its own exchange, a request for
// another host misses saying which host has the endpoint, and a base-URL
// request (no host) is answered whatever the host.
func TestServeMatchesHost(t *testing.T) {
	mk := func(ex int, host, body string) *tape.Exchange {
		return &tape.Exchange{Ex: ex,
			Request: &tape.Request{Ex: ex, Method: "POST", Scheme: "https", Host: host, URL: "/v1/chat/completions", Body: []byte(`{"model":"m"}`)},
			Upstream: tape.SideData{
				Response: &tape.Response{Ex: ex, Side: tape.Upstream, Status: 200, Headers: tape.Headers{"content-type": {"application/json"}}},
				Chunks:   []tape.Chunk{{Ex: ex, Side: tape.Upstream, Data: []byte(body)}},
				End:      &tape.End{Ex: ex, Side: tape.Upstream, Outcome: tape.Complete, Bytes: int64(len(body))},
			}}
	}
	c := &tape.Capture{Name: "fwd", Exchanges: []*tape.Exchange{mk(1, "api.openai.com", "openai"), mk(2, "openrouter.ai", "openrouter")}}
	srv := replay.NewServer([]*tape.Capture{c}, replay.ServerOptions{Speed: 0})
	get := func(url string) (int, string) {
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, httptest.NewRequest("POST", url, strings.NewReader(`{"model":"m"}`)))
		return w.Code, w.Body.String()
	}
	for url, want := range map[string]string{
		"https://api.openai.com/v1/chat/completions": "openai",
		"https://openrouter.ai/v1/chat/completions":  "openrouter",
		"/v1/chat/completions":                       "openai",
	} {
		if code, body := get(url); code != 200 || body != want {
			t.Errorf("%s: %d %q, want %q", url, code, body, want)
		}
	}
	code, body := get("https://api.groq.com/v1/chat/completions")
	if code != 404 || !strings.Contains(body, "on host api.openai.com") {
		t.Errorf("other host: %d %s", code, body)
	}
}

// TestServerLogsBrokenAnswers: an answer the server breaks off (a
// disconnect fault, or a recorded upstream that broke off mid-stream) is
// logged too, once it ends, with the client told nothing more.
func TestServerLogsBrokenAnswers(t *testing.T) {
	t.Parallel()
	broken := synthetic(`{"n":1}`)
	broken.Exchanges[0].Upstream.End = &tape.End{Ex: 1, Side: tape.Upstream, Outcome: tape.UpstreamError, Error: "connection reset"}
	for name, tc := range map[string]struct {
		c      *tape.Capture
		faults []replay.Fault
		want   string
	}{
		"disconnect fault":  {synthetic(`{"n":1}`), []replay.Fault{{Kind: replay.FaultDisconnect}}, "faults disconnect=0s, broken off mid-stream"},
		"recorded breakoff": {broken, nil, ", broken off mid-stream"},
	} {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var logged []replay.Served
			srv := httptest.NewServer(replay.NewServer([]*tape.Capture{tc.c}, replay.ServerOptions{Faults: tc.faults, Log: func(s replay.Served) {
				mu.Lock()
				logged = append(logged, s)
				mu.Unlock()
			}}))
			srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the aborted handler
			defer srv.Close()
			resp, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"n":1}`))
			if err == nil {
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			if err == nil {
				t.Error("the client read a whole answer: it was not broken off")
			}
			srv.Close() // waits for the handler
			mu.Lock()
			defer mu.Unlock()
			if len(logged) != 1 || !strings.Contains(logged[0].String(), tc.want) {
				t.Fatalf("logged %q, want one line with %q", logged, tc.want)
			}
		})
	}
}
