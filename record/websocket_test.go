package record_test

import (
	"bufio"
	"bytes"
	"compress/flate"
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
	"github.com/seam-dev/seam/wsframe"
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
// hijacked connection, answering with the extra header lines (each ending
// in CRLF), and then runs talk on it.
func rawUpgrade(extra string, talk func(c net.Conn, r *bufio.Reader)) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		c, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer c.Close()
		fmt.Fprintf(brw, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n%s\r\n", acceptKey(req.Header.Get("Sec-WebSocket-Key")), extra)
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
	mux.Handle("/up", rawUpgrade("", func(c net.Conn, _ *bufio.Reader) {
		c.Write(append(hugeFrameHeader(false), "payload?"...))
		time.Sleep(50 * time.Millisecond)
	}))
	// The upstream reads what the client sends until it hangs up.
	mux.Handle("/client", rawUpgrade("", func(c net.Conn, r *bufio.Reader) {
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

// Canaries: secret values a WebSocket session's request carries, and one
// a client's message carries.
const (
	canaryAuth = "sk-CANARY-AUTH-0123456789"
	canarySubp = "sk-CANARY-SUBP-0123456789"
	canaryBody = "sk-CANARY-BODY-0123456789"
)

// deflateAfter deflates payload as a sender keeping its context does
// after sending prev: it may refer back into prev.
func deflateAfter(prev, payload []byte) []byte {
	var b bytes.Buffer
	w, _ := flate.NewWriterDict(&b, flate.BestCompression, prev)
	w.Write(payload)
	w.Flush()
	return bytes.TrimSuffix(b.Bytes(), []byte{0, 0, 0xff, 0xff})
}

// frame is one frame; a client's (masked) when mask is set.
func frame(op wsframe.Opcode, fin, rsv1, mask bool, payload []byte) []byte {
	return wsframe.AppendFrame(nil, wsframe.Header{Fin: fin, Rsv1: rsv1, Opcode: op, Masked: mask, Mask: [4]byte{0x5a, 0x17, 0xc3, 0x08}}, payload)
}

// TestWebSocketSecretsNeverOnDisk: a session's secret values reach
// neither the capture nor what a reader decodes of it, wherever the
// frames hide them: a compressed server message echoing the request's
// Authorization (and one referring back to it through the compression
// window), the subprotocol key cut across two frames, a client's
// session.update carrying an api_key (compressed) and the server echoing
// that key, a client's masked frames holding the key cut in two. A
// compressed echo that does not inflate whole cannot be masked: the rest
// of that side is withheld, with a note. The organization and project ids
// sent as subprotocols are redacted as their headers are.
func TestWebSocketSecretsNeverOnDisk(t *testing.T) {
	echo := []byte(`{"type":"session.created","echo":"Bearer ` + canaryAuth + `"}`)
	again := []byte(`{"type":"session.created","again":"Bearer ` + canaryAuth + `"}`)
	clean := []byte(`{"type":"response.created","response":{"id":"resp_1"}}`)
	session := []byte(`{"type":"session.update","session":{"api_key":"` + canaryBody + `","voice":"alloy"}}`)
	var client []byte
	client = append(client, frame(wsframe.Text, true, true, true, wsframe.Deflate(nil, session))...)
	cutKey := []byte(`{"type":"conversation.item.create","note":"` + canaryAuth + `"}`)
	client = append(client, frame(wsframe.Text, false, false, true, cutKey[:50])...)
	client = append(client, frame(wsframe.Ping, true, false, true, []byte("p"))...)
	client = append(client, frame(wsframe.Continuation, true, false, true, cutKey[50:])...)

	var server []byte
	server = append(server, frame(wsframe.Text, true, true, false, wsframe.Deflate(nil, echo))...)
	server = append(server, frame(wsframe.Text, true, true, false, deflateAfter(echo, again))...)
	server = append(server, frame(wsframe.Text, true, true, false, deflateAfter(append(echo, again...), clean))...)
	// Clean, but compressed against the window: it refers back to part of
	// the key (not the whole), which a reader would inflate from the
	// masked bytes.
	partial := []byte(`{"type":"z","partial":"CANARY-AUTH-01234"}`)
	server = append(server, frame(wsframe.Text, true, true, false, deflateAfter(append(append(echo, again...), clean...), partial))...)
	subp := []byte(`{"type":"x","subprotocol":"openai-insecure-api-key.` + canarySubp + `"}`)
	server = append(server, frame(wsframe.Text, false, false, false, subp[:45])...)
	server = append(server, frame(wsframe.Continuation, true, false, false, subp[45:])...)
	server = append(server, frame(wsframe.Text, true, false, false, []byte(`{"type":"y","key_was":"`+canaryBody+`"}`))...)
	// A stored block holding the key, then bytes that do not inflate.
	stored := []byte("api key " + canaryAuth)
	broken := append([]byte{0x00, byte(len(stored)), 0x00, ^byte(len(stored)), 0xff}, stored...)
	server = append(server, frame(wsframe.Text, true, true, false, append(broken, 0xff, 0xff, 0xff))...)
	server = append(server, frame(wsframe.Close, true, false, false, []byte{0x03, 0xe8})...)

	r := newRig(t, rawUpgrade("Sec-WebSocket-Extensions: permessage-deflate\r\n", func(c net.Conn, r *bufio.Reader) {
		// The echo of the client's key comes after the client's messages.
		io.ReadFull(r, make([]byte, len(client)))
		c.Write(server)
		io.Copy(io.Discard, r)
	}), nil)
	addr := r.front.Listener.Addr().String()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "GET /v1/realtime?model=m HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"+
		"Authorization: Bearer %s\r\nSec-WebSocket-Protocol: realtime, openai-insecure-api-key.%s, openai-organization.org-CANARYORG, openai-project.proj_CANARYPROJ\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n", addr, canaryAuth, canarySubp)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("handshake: %v %v", resp, err)
	}
	c.Write(client)
	got := make([]byte, len(server))
	if _, err := io.ReadFull(br, got); err != nil || !bytes.Equal(got, server) {
		t.Fatalf("the client read %d bytes (%v), not the server's frames", len(got), err)
	}
	c.Close()

	capt := r.finish()
	if bytes.Contains(r.buf.Bytes(), []byte(canaryAuth)) || bytes.Contains(r.buf.Bytes(), []byte(canarySubp)) || bytes.Contains(r.buf.Bytes(), []byte(canaryBody)) {
		t.Errorf("a canary reached the capture:\n%s", r.buf.Bytes())
	}
	x := capt.Exchanges[0]
	ext := x.Upstream.Response.Headers["sec-websocket-extensions"]
	decoded := map[tape.Side][]wsframe.Message{}
	for _, side := range []tape.Side{tape.Upstream, tape.Client} {
		sd := x.Side(side)
		for _, ch := range sd.Chunks {
			if bytes.Contains(ch.Data, []byte(canaryAuth)) || bytes.Contains(ch.Data, []byte(canaryBody)) {
				t.Errorf("%s chunk %q holds a canary", side, ch.Data)
			}
		}
		msgs, problems := wsframe.Decode(sd.Body(), wsframe.Negotiated(ext, side == tape.Client))
		if len(problems) > 0 {
			t.Errorf("%s: %v", side, problems)
		}
		for _, m := range msgs {
			for _, c := range []string{canaryAuth, canarySubp, canaryBody} {
				if bytes.Contains(m.Payload, []byte(c)) {
					t.Errorf("%s message %q decodes to a canary", side, m.Payload)
				}
			}
		}
		decoded[side] = msgs
	}
	// Everything but the broken message and what follows it is there,
	// masked where it held a secret.
	var texts []string
	for _, m := range decoded[tape.Upstream] {
		texts = append(texts, string(m.Payload))
	}
	masked := func(s string) string { return "[redacted]" + strings.Repeat("*", len(s)-len("[redacted]")) }
	want := []string{
		`{"type":"session.created","echo":"` + masked("Bearer "+canaryAuth) + `"}`,
		`{"type":"session.created","again":"` + masked("Bearer "+canaryAuth) + `"}`,
		string(clean),
		`{"type":"z","partial":"CANARY-AUTH-01234"}`,
		`{"type":"x","subprotocol":"` + masked("openai-insecure-api-key."+canarySubp) + `"}`,
		`{"type":"y","key_was":"` + masked(canaryBody) + `"}`,
	}
	if strings.Join(texts, "\n") != strings.Join(want, "\n") {
		t.Errorf("upstream messages\n%s\nwant\n%s", strings.Join(texts, "\n"), strings.Join(want, "\n"))
	}
	if n := len(decoded[tape.Client]); n != 3 || !strings.Contains(string(decoded[tape.Client][0].Payload), `"api_key":"`+masked(canaryBody)+`","voice":"alloy"`) ||
		!strings.Contains(string(decoded[tape.Client][2].Payload), `"note":"`+masked(canaryAuth)+`"`) {
		t.Errorf("client messages %+v", decoded[tape.Client])
	}
	if e := x.Upstream.End; e.Unrecorded != int64(len(broken)+3+2+4) {
		t.Errorf("upstream end %+v, want the broken message and the close frame unrecorded", e)
	}
	notes := ""
	for _, n := range x.Notes {
		notes += n.Text + "\n"
	}
	for _, want := range []string{"3 compressed message(s), holding one or referring back to one, were deflated again", "does not inflate whole, so it cannot be masked", "from byte"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if p := x.Request.Headers["sec-websocket-protocol"]; len(p) != 1 || p[0] != "realtime, [redacted], openai-organization.[redacted], openai-project.[redacted]" {
		t.Errorf("subprotocols %q", p)
	}
}
