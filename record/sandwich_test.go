package record_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/tape"
)

// apiStream is what the upstream API sends for request id.
func apiStream(id string) []string {
	return []string{
		`data: {"choices":[{"delta":{"content":"` + id + `:Hel"}}]}` + "\n\n",
		`data: {"choices":[{"delta":{"content":"lo"}}]}` + "\n\n",
		"data: [DONE]\n\n",
	}
}

// buggyProxy stands for a proxy under test: it forwards the request body to
// upstream and streams the answer back, but sends its second event twice.
// forward says whether it passes unknown request headers on.
func buggyProxy(upstream string, forward bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		out, _ := http.NewRequestWithContext(r.Context(), "POST", upstream+"/v1/chat/completions", r.Body)
		out.Header.Set("Content-Type", "application/json")
		if forward {
			out.Header.Set(record.ExchangeHeader, r.Header.Get(record.ExchangeHeader))
		}
		resp, err := http.DefaultClient.Do(out)
		if err != nil {
			http.Error(w, err.Error(), 502)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "text/event-stream")
		br := bufio.NewReader(resp.Body)
		var event strings.Builder
		n := 0
		for {
			line, err := br.ReadString('\n')
			event.WriteString(line)
			if line == "\n" {
				n++
				times := 1
				if n == 2 {
					times = 2 // the bug under test
				}
				for range times {
					io.WriteString(w, event.String())
				}
				w.(http.Flusher).Flush()
				event.Reset()
			}
			if err != nil {
				return
			}
		}
	})
}

// TestSandwich records a black-box proxy from both sides: each exchange
// holds the client's request, the request as the proxy sent it upstream,
// the upstream's bytes and the bytes the proxy gave the client, whether the
// proxy forwards the exchange header (concurrent requests) or drops it
// (requests matched in arrival order).
func TestSandwich(t *testing.T) {
	for _, forward := range []bool{true, false} {
		t.Run(fmt.Sprintf("forward header %v", forward), func(t *testing.T) {
			var gotTag sync.Map
			api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				gotTag.Store(r.Header.Get(record.ExchangeHeader), true)
				body, _ := io.ReadAll(r.Body)
				id := strings.TrimSuffix(strings.TrimPrefix(string(body), `{"id":"`), `"}`)
				w.Header().Set("Content-Type", "text/event-stream")
				for _, p := range apiStream(id) {
					io.WriteString(w, p)
					w.(http.Flusher).Flush()
				}
			}))
			defer api.Close()
			apiURL, _ := url.Parse(api.URL)

			var sums []record.Summary
			var mu sync.Mutex
			rig := newSandwich(t, apiURL, func(back string) http.Handler { return buggyProxy(back, forward) },
				func(s record.Summary) { mu.Lock(); sums = append(sums, s); mu.Unlock() })
			frontSrv := rig.frontSrv

			ids := []string{"a", "b", "c", "d"}
			var wg sync.WaitGroup
			send := func(id string) {
				resp, err := http.Post(frontSrv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"id":"`+id+`"}`))
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			for _, id := range ids {
				if forward {
					wg.Go(func() { send(id) })
				} else {
					send(id) // arrival order is the only clue
				}
			}
			wg.Wait()
			c := rig.finish(t)
			if _, leaked := gotTag.Load(""); !leaked {
				t.Error("the exchange header reached the upstream API")
			}
			if len(c.Exchanges) != len(ids) || len(sums) != len(ids) {
				t.Fatalf("%d exchanges and %d summaries, want %d", len(c.Exchanges), len(sums), len(ids))
			}
			// The summary line puts the upstream's numbers (the back leg's)
			// under "up" and the proxy's output under "client".
			byEx := map[int]*tape.Exchange{}
			for _, x := range c.Exchanges {
				byEx[x.Ex] = x
			}
			for _, s := range sums {
				x := byEx[s.Ex]
				if s.NoUpstream || s.UpstreamBytes != int64(len(x.Upstream.Body())) || s.UpstreamEvents != 3 {
					t.Errorf("summary of exchange %d: up %d bytes/%d events (no upstream %v), want the API's %d bytes/3 events: %s",
						s.Ex, s.UpstreamBytes, s.UpstreamEvents, s.NoUpstream, len(x.Upstream.Body()), s)
				}
				if s.ClientBytes != int64(len(x.Client.Body())) || s.ClientEvents != 4 {
					t.Errorf("summary of exchange %d: client %d bytes/%d events, want the proxy's %d bytes/4 events: %s",
						s.Ex, s.ClientBytes, s.ClientEvents, len(x.Client.Body()), s)
				}
				if s.TTFB <= 0 || s.TTFB > s.Duration {
					t.Errorf("summary of exchange %d: ttfb %v outside (0, %v]", s.Ex, s.TTFB, s.Duration)
				}
			}
			for _, x := range c.Exchanges {
				if x.Request == nil || x.UpstreamRequest == nil {
					t.Fatalf("exchange %d: request %v, upstream request %v", x.Ex, x.Request, x.UpstreamRequest)
				}
				if !bytes.Equal(x.Request.Body, x.UpstreamRequest.Body) {
					t.Errorf("exchange %d: the back leg was filed under the wrong exchange: %s vs %s", x.Ex, x.Request.Body, x.UpstreamRequest.Body)
				}
				id := strings.TrimSuffix(strings.TrimPrefix(string(x.Request.Body), `{"id":"`), `"}`)
				want := strings.Join(apiStream(id), "")
				if got := string(x.Upstream.Body()); got != want {
					t.Errorf("exchange %d upstream side %q, want the API's %q", x.Ex, got, want)
				}
				s := apiStream(id)
				if got, want := string(x.Client.Body()), s[0]+s[1]+s[1]+s[2]; got != want {
					t.Errorf("exchange %d client side %q, want the proxy's %q", x.Ex, got, want)
				}
				for _, side := range []tape.Side{tape.Upstream, tape.Client} {
					if sd := x.Side(side); sd.Response == nil || sd.End == nil || sd.End.Outcome != tape.Complete {
						t.Errorf("exchange %d %s side incomplete: %+v", x.Ex, side, sd.End)
					}
				}
			}
		})
	}
}

// TestSandwichProxyAnswersItself: when the proxy under test answers without
// going upstream, the summary line says the upstream is unknown ("up -")
// rather than repeating the proxy's numbers.
func TestSandwichProxyAnswersItself(t *testing.T) {
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("the upstream was called")
	}))
	defer api.Close()
	apiURL, _ := url.Parse(api.URL)
	sums := make(chan record.Summary, 1)
	rig := newSandwich(t, apiURL, func(string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"cached\"}}]}\n\ndata: [DONE]\n\n")
		})
	}, func(s record.Summary) { sums <- s })
	frontSrv := rig.frontSrv
	resp, err := http.Post(frontSrv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	rig.finish(t)
	s := <-sums
	if !s.NoUpstream || s.UpstreamBytes != 0 || !strings.Contains(s.String(), "  up -  ") || s.ClientEvents != 2 {
		t.Errorf("summary %+v\n%s\nwant no upstream and the proxy's 2 events under client", s, s)
	}
}

// sandwichRig is a sandwich recording in a test: the front leg, the proxy
// under test, the back leg, one capture.
type sandwichRig struct {
	buf                      bytes.Buffer
	wr                       *tape.Writer
	front, back              *record.Recorder
	frontSrv, backSrv, proxy *httptest.Server
	numbering                *record.Numbering
}

// newSandwich starts the two legs around the proxy proxyFor makes from the
// back leg's URL; onDone gets the front leg's summaries.
func newSandwich(t *testing.T, api *url.URL, proxyFor func(back string) http.Handler, onDone func(record.Summary)) *sandwichRig {
	t.Helper()
	s := &sandwichRig{}
	s.wr = tape.NewWriter(&s.buf, tape.WriterOptions{})
	s.wr.Header(tape.Header{V: tape.Version, Seam: "test", Engine: tape.Engine{Profile: "external"}})
	n := new(record.Numbering)
	s.numbering = n
	var err error
	if s.back, err = record.New(record.Options{Upstream: api, Writer: s.wr, Leg: record.Back, Numbering: n}); err != nil {
		t.Fatal(err)
	}
	s.backSrv = httptest.NewServer(s.back)
	s.proxy = httptest.NewServer(proxyFor(s.backSrv.URL))
	proxyURL, _ := url.Parse(s.proxy.URL)
	if s.front, err = record.New(record.Options{Upstream: proxyURL, Writer: s.wr, Leg: record.Front, Numbering: n, OnDone: onDone}); err != nil {
		t.Fatal(err)
	}
	s.frontSrv = httptest.NewServer(s.front)
	return s
}

// finish stops the legs (front first), closes the capture and reads it.
func (s *sandwichRig) finish(t *testing.T) *tape.Capture {
	t.Helper()
	s.frontSrv.Close()
	s.front.Wait()
	s.proxy.Close()
	s.backSrv.Close()
	s.back.Wait()
	if err := s.wr.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := tape.Read(&s.buf, "sandwich")
	if err != nil || len(c.Warnings) > 0 {
		t.Fatalf("decode: %v %v", err, c.Warnings)
	}
	return c
}
