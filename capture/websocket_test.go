package capture_test

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/tape"
)

// hugeFrameHeader is a binary frame header declaring 2^63−1 payload bytes,
// masked as a client sends it when masked is set: ten (or fourteen) bytes.
func hugeFrameHeader(masked bool) []byte {
	h := []byte{0x82, 0x7f, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	if masked {
		h[1] |= 0x80
		h = append(h, 9, 8, 7, 6)
	}
	return h
}

// rawUpgrade is an upstream that accepts a WebSocket handshake on a
// hijacked connection and then runs talk on it.
func rawUpgrade(talk func(c net.Conn, r *bufio.Reader)) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		c, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer c.Close()
		fmt.Fprintf(brw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n", acceptKey(req.Header.Get("Sec-WebSocket-Key")))
		brw.Flush()
		talk(c, brw.Reader)
	}
}

// acceptKey is the Sec-WebSocket-Accept of a Sec-WebSocket-Key.
func acceptKey(key string) string {
	h := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	return base64.StdEncoding.EncodeToString(h[:])
}

// dialUpgrade opens a raw WebSocket connection through the recorder at
// addr: the handshake, then the connection and what was read after the
// 101 response.
func dialUpgrade(t *testing.T, addr, path string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", path, addr)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake: %s", resp.Status)
	}
	return c, br
}

// TestWebSocketHugeFrameLength: a frame header declaring 2^63−1 payload
// bytes, from the upstream or from the client, once panicked the frame
// splitter (header size plus length wrapped negative) and ended seam
// record, losing the end lines of every exchange in flight. Now the
// process goes on, the hostile exchange is recorded (its bytes as a cut
// last frame, both ends written) and an exchange in flight at the time
// ends whole.
func TestWebSocketHugeFrameLength(t *testing.T) {
	release := make(chan struct{})
	mux := http.NewServeMux()
	// The upstream sends the hostile header and a few bytes, then hangs up.
	mux.Handle("/up", rawUpgrade(func(c net.Conn, _ *bufio.Reader) {
		c.Write(append(hugeFrameHeader(false), "payload?"...))
		time.Sleep(50 * time.Millisecond)
	}))
	// The upstream reads what the client sends until it hangs up.
	mux.Handle("/client", rawUpgrade(func(c net.Conn, r *bufio.Reader) {
		io.Copy(io.Discard, r)
	}))
	// A stream in flight while the hostile frames pass.
	mux.HandleFunc("/stream", func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"n\":1}\n\n")
		w.(http.Flusher).Flush()
		<-release
		io.WriteString(w, "data: [DONE]\n\n")
	})
	r := newRig(t, mux, nil)
	addr := r.front.Listener.Addr().String()

	streamDone := make(chan string, 1)
	go func() {
		resp, err := http.Get(r.front.URL + "/stream")
		if err != nil {
			streamDone <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		streamDone <- string(b)
	}()
	waitSummaries := func(n int) {
		t.Helper()
		for range 200 {
			r.mu.Lock()
			got := len(r.sums)
			r.mu.Unlock()
			if got >= n {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("fewer than %d exchanges ended", n)
	}

	// From the upstream.
	c, br := dialUpgrade(t, addr, "/up")
	got, _ := io.ReadAll(br)
	c.Close()
	if want := append(hugeFrameHeader(false), "payload?"...); !bytes.Equal(got, want) {
		t.Errorf("the client read %q, want the upstream's bytes %q", got, want)
	}
	waitSummaries(1)
	// From the client.
	c, _ = dialUpgrade(t, addr, "/client")
	c.Write(append(hugeFrameHeader(true), "payload?"...))
	time.Sleep(50 * time.Millisecond)
	c.Close()
	waitSummaries(2)

	close(release)
	if s := <-streamDone; !strings.HasSuffix(s, "data: [DONE]\n\n") {
		t.Errorf("the stream in flight got %q", s)
	}
	capt := r.finish()
	if len(capt.Exchanges) != 3 {
		t.Fatalf("%d exchanges, want 3", len(capt.Exchanges))
	}
	for _, x := range capt.Exchanges {
		checkOffsets(t, x)
		switch {
		case strings.HasPrefix(x.Request.URL, "/stream"):
			if x.Client.End.Outcome != tape.Complete {
				t.Errorf("the stream in flight ended %s", x.Client.End.Outcome)
			}
		case strings.HasPrefix(x.Request.URL, "/up"):
			if b := x.Upstream.Body(); !bytes.Equal(b, append(hugeFrameHeader(false), "payload?"...)) {
				t.Errorf("upstream side %q", b)
			}
			if x.Upstream.End.Outcome != tape.Truncated {
				t.Errorf("upstream side ended %s, want truncated (no close frame)", x.Upstream.End.Outcome)
			}
		case strings.HasPrefix(x.Request.URL, "/client"):
			if b := x.Client.Body(); !bytes.Equal(b, append(hugeFrameHeader(true), "payload?"...)) {
				t.Errorf("client side %q", b)
			}
			if x.Client.End.Outcome != tape.ClientAborted {
				t.Errorf("client side ended %s, want client_aborted (no close frame)", x.Client.End.Outcome)
			}
		}
	}
}
