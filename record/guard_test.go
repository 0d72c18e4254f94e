package record_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/tape"
)

// boom is what makes the injected tap panic: the bytes of one exchange
// carry it, the others do not.
const boom = "BOOM"

// panicOn returns a tap that panics when the bytes passing the tap named
// where hold boom, as a parser choking on hostile bytes would.
func panicOn(where string) func(string, []byte) {
	return func(w string, p []byte) {
		if w == where && bytes.Contains(p, []byte(boom)) {
			panic("injected: the " + w + " tap choked")
		}
	}
}

// echoStream streams three events naming the request body's id, gzipped
// when gz is set and the client accepts it.
func echoStream(gz bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		var out io.Writer = w
		flush := func() { w.(http.Flusher).Flush() }
		if gz && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			defer zw.Close()
			out = zw
			flush = func() { zw.Flush(); w.(http.Flusher).Flush() }
		}
		for i := range 3 {
			fmt.Fprintf(out, "data: {\"choices\":[{\"delta\":{\"content\":\"%s %d\"}}]}\n\n", body, i)
			flush()
		}
		io.WriteString(out, "data: [DONE]\n\n")
	}
}

// TestPanicInTapBreaksOnlyItsExchange injects a panic into each tap seam
// runs on a connection's goroutines (the handler's, the transport's that
// sends the request body, a decoder's) while other exchanges stream: the
// process goes on (an unrecovered panic would end this test binary), the
// exchange whose bytes set it off ends on both sides as recorder_error
// with the panic and a note, its client's answer is broken off, and every
// other exchange, concurrent or later, is recorded whole.
func TestPanicInTapBreaksOnlyItsExchange(t *testing.T) {
	for _, where := range []string{"request body", "upstream", "client", "decoded"} {
		t.Run(where, func(t *testing.T) {
			r := newRig(t, echoStream(where == "decoded"), nil)
			record.SetTestTap(r.rec, panicOn(where))
			ids := []string{"a", "b", boom, "c", "d"}
			answers := make([]string, len(ids))
			errs := make([]error, len(ids))
			var wg sync.WaitGroup
			for i, id := range ids {
				wg.Go(func() {
					resp, err := http.Post(r.front.URL+"/v1/chat/completions", "application/json", strings.NewReader(id))
					if err != nil {
						errs[i] = err
						return
					}
					b, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					answers[i], errs[i] = string(b), err
					if err == nil && resp.StatusCode != http.StatusOK {
						errs[i] = fmt.Errorf("status %d: %s", resp.StatusCode, b)
					}
				})
			}
			wg.Wait()
			// The recorder goes on after the panic.
			resp, err := http.Post(r.front.URL+"/v1/chat/completions", "application/json", strings.NewReader("after"))
			if err != nil {
				t.Fatalf("a request after the panic: %v", err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			c := r.finish()

			if errs[2] == nil {
				t.Errorf("the broken exchange's client got a whole answer: %q", answers[2])
			}
			if len(c.Exchanges) != len(ids)+1 || len(r.sums) != len(ids)+1 {
				t.Fatalf("%d exchanges, %d summaries, want %d", len(c.Exchanges), len(r.sums), len(ids)+1)
			}
			broken := 0
			for _, x := range c.Exchanges {
				if x.Request == nil {
					t.Fatalf("exchange %d has no request line", x.Ex)
				}
				if id := string(x.Request.Body); id != boom && !x.Request.BodyTruncated {
					if x.Client.End == nil || x.Client.End.Outcome != tape.Complete || x.Upstream.End == nil || x.Upstream.End.Outcome != tape.Complete {
						t.Errorf("exchange %d (%s) not whole: upstream %+v, client %+v", x.Ex, id, x.Upstream.End, x.Client.End)
					}
					if !strings.Contains(string(x.Client.Body()), id+" 2") && x.Client.End.Outcome == tape.Complete && where != "decoded" {
						t.Errorf("exchange %d (%s) client body %q", x.Ex, id, x.Client.Body())
					}
					continue
				}
				broken++
				for _, sd := range []*tape.SideData{&x.Upstream, &x.Client} {
					if sd.End == nil || sd.End.Outcome != tape.RecorderError || !strings.Contains(sd.End.Error, "injected: the "+where+" tap choked") {
						t.Errorf("broken exchange %d: end %+v, want recorder_error with the panic", x.Ex, sd.End)
					}
				}
				noted := false
				for _, n := range x.Notes {
					noted = noted || strings.Contains(n.Text, "seam: panic in the ") && strings.Contains(n.Text, "injected: the "+where+" tap choked")
				}
				if !noted {
					t.Errorf("broken exchange %d: no note with the panic: %+v", x.Ex, x.Notes)
				}
			}
			if broken != 1 {
				t.Errorf("%d broken exchanges, want 1", broken)
			}
			for i, err := range errs {
				if i != 2 && err != nil {
					t.Errorf("request %s: %v", ids[i], err)
				}
			}
			for _, s := range r.sums {
				if s.Outcome == tape.RecorderError && !strings.Contains(s.String(), "injected") {
					t.Errorf("summary of the broken exchange: %s", s)
				}
			}
		})
	}
}

// TestPanicInWebSocketTap: the two goroutines that copy a WebSocket's
// frames are httputil's, which nothing recovers. A panic in the frame tap
// breaks that session only: its end lines say recorder_error, its client's
// connection is closed, and a session running beside it is recorded whole.
func TestPanicInWebSocketTap(t *testing.T) {
	r := newRig(t, wsEcho(websocket.CompressionDisabled), nil)
	record.SetTestTap(r.rec, panicOn("websocket"))
	u := "ws" + strings.TrimPrefix(r.front.URL, "http") + "/v1/realtime"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dial := func() *websocket.Conn {
		c, _, err := websocket.Dial(ctx, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	healthy, doomed := dial(), dial()
	// The upstream's echo of boom sets the tap off: the session is broken
	// off after that frame.
	if err := doomed.Write(ctx, websocket.MessageText, []byte(boom)); err != nil {
		t.Fatal(err)
	}
	for {
		_, _, err := doomed.Read(ctx)
		if ctx.Err() != nil {
			t.Fatal("the broken session was not closed")
		}
		if err != nil {
			break
		}
	}
	for _, m := range []string{"one", "two", "bye"} {
		if err := healthy.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
			t.Fatal(err)
		}
		if _, got, err := healthy.Read(ctx); m != "bye" && (err != nil || string(got) != m) {
			t.Fatalf("healthy session: %q %v", got, err)
		}
	}
	healthy.Close(websocket.StatusNormalClosure, "")
	doomed.CloseNow()
	c := r.finish()
	if len(c.Exchanges) != 2 {
		t.Fatalf("%d exchanges", len(c.Exchanges))
	}
	outcomes := map[tape.Outcome]int{}
	for _, x := range c.Exchanges {
		for _, sd := range []*tape.SideData{&x.Upstream, &x.Client} {
			if sd.End == nil {
				t.Fatalf("exchange %d: a side without its end line", x.Ex)
			}
			outcomes[sd.End.Outcome]++
			if sd.End.Outcome == tape.RecorderError && !strings.Contains(sd.End.Error, "injected: the websocket tap choked") {
				t.Errorf("exchange %d: %+v", x.Ex, sd.End)
			}
		}
	}
	if outcomes[tape.RecorderError] != 2 || outcomes[tape.Complete] != 2 {
		t.Errorf("outcomes %v, want the healthy session's two sides complete and the other's recorder_error", outcomes)
	}
}

// TestPanicInSandwichSummary: the front leg of a sandwich reports an
// exchange from a goroutine of its own, once the back leg's numbers are
// in. A panic there (here the summary callback's) ends neither the process
// nor the other exchanges' recording.
func TestPanicInSandwichSummary(t *testing.T) {
	api := newRig(t, echoStream(false), nil).upstream
	apiURL, _ := url.Parse(api.URL)
	var mu sync.Mutex
	var reported []int
	s := newSandwich(t, apiURL, func(back string) http.Handler { return buggyProxy(back, true) }, func(s record.Summary) {
		if s.Ex == 1 {
			panic("injected: the summary choked")
		}
		mu.Lock()
		reported = append(reported, s.Ex)
		mu.Unlock()
	})
	for _, id := range []string{"a", "b", "c"} {
		resp, err := http.Post(s.frontSrv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"id":"`+id+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	c := s.finish(t)
	if len(c.Exchanges) != 3 || len(reported) != 2 {
		t.Fatalf("%d exchanges, %v reported", len(c.Exchanges), reported)
	}
	for _, x := range c.Exchanges {
		if x.Client.End == nil || x.Client.End.Outcome != tape.Complete {
			t.Errorf("exchange %d: %+v", x.Ex, x.Client.End)
		}
	}
}
