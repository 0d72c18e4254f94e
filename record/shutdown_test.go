package record_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/tape"
)

// TestShutdownCutIsSeams: streams still open when seam shuts down are cut
// by seam, which says so (recorder_shutdown on both sides) instead of
// blaming the client (client_aborted); a client that hung up on its own
// before is still client_aborted. Both an HTTP stream and a WebSocket,
// which the server no longer tracks once switched, are cut that way.
func TestShutdownCutIsSeams(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	upstream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "" {
			wsEcho(websocket.CompressionDisabled)(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	})
	up := newRig(t, upstream, nil).upstream // an upstream only
	upURL, _ := url.Parse(up.URL)
	var buf bytes.Buffer
	w := tape.NewWriter(&buf, tape.WriterOptions{})
	w.Header(tape.Header{V: tape.Version, Seam: "test", Upstream: up.URL})
	rec, err := record.New(record.Options{Upstream: upURL, Writer: w})
	if err != nil {
		t.Fatal(err)
	}
	// The servers of seam record: their requests' context is cut with
	// record.ErrShutdown when the grace runs out.
	base, cut := context.WithCancelCause(context.Background())
	srv := &http.Server{Handler: rec, BaseContext: func(net.Listener) context.Context { return base }}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	front := "http://" + ln.Addr().String()

	open := func() *http.Response {
		resp, err := http.Post(front+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		return resp
	}
	left := open() // hangs up on its own, before the shutdown
	left.Body.Close()
	stays := open()
	defer stays.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(front, "http")+"/v1/realtime", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	if err := ws.Write(ctx, websocket.MessageText, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ws.Read(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // the first client's hang-up reaches seam

	// The grace ran out: what recording.stop does.
	short, cancelShort := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancelShort()
	if err := srv.Shutdown(short); err == nil {
		t.Fatal("shutdown did not wait for the open stream")
	}
	cut(record.ErrShutdown)
	srv.Close()
	rec.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := tape.Read(&buf, "shutdown")
	if err != nil || len(c.Exchanges) != 3 {
		t.Fatalf("%v, %d exchanges", err, len(c.Exchanges))
	}
	want := []tape.Outcome{tape.ClientAborted, tape.RecorderShutdown, tape.RecorderShutdown}
	for i, x := range c.Exchanges {
		up, cl := outcomes(x)
		if up != want[i] || cl != want[i] {
			t.Errorf("exchange %d (%s %s): upstream %s, client %s, want %s on both", x.Ex, x.Request.Method, x.Request.URL, up, cl, want[i])
		}
	}
}
