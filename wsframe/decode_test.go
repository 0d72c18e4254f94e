package wsframe

import (
	"bytes"
	"context"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/gobwas/ws"
)

// wire records the bytes of one client connection: what the client read
// (server frames) and what it wrote (client frames).
type wire struct {
	net.Conn
	mu          sync.Mutex
	read, wrote bytes.Buffer
}

func (w *wire) Read(p []byte) (int, error) {
	n, err := w.Conn.Read(p)
	w.mu.Lock()
	w.read.Write(p[:n])
	w.mu.Unlock()
	return n, err
}

func (w *wire) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.wrote.Write(p)
	w.mu.Unlock()
	return w.Conn.Write(p)
}

// session runs a conversation with another WebSocket implementation
// (coder/websocket on both ends) over loopback and returns the recorded
// bytes of each direction after the handshake, and the response's
// Sec-WebSocket-Extensions.
func session(t *testing.T, mode websocket.CompressionMode, talk func(ctx context.Context, c *websocket.Conn)) (fromServer, fromClient []byte, ext []string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: mode})
		if err != nil {
			return
		}
		ctx := r.Context()
		for {
			typ, b, err := c.Read(ctx)
			if err != nil {
				return
			}
			if string(b) == "bye" {
				c.Close(4000, "done here")
				return
			}
			c.Write(ctx, typ, b)
		}
	}))
	defer srv.Close()
	var rec *wire
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := net.Dial(network, addr)
		rec = &wire{Conn: c}
		return rec, err
	}}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), &websocket.DialOptions{HTTPClient: client, CompressionMode: mode, CompressionThreshold: 1})
	if err != nil {
		t.Fatal(err)
	}
	talk(ctx, c)
	c.CloseNow()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	// Cut the handshake: the server's response ends at the first blank line.
	read := rec.read.Bytes()
	i := bytes.Index(read, []byte("\r\n\r\n"))
	w := rec.wrote.Bytes()
	j := bytes.Index(w, []byte("\r\n\r\n"))
	return append([]byte(nil), read[i+4:]...), append([]byte(nil), w[j+4:]...), resp.Header.Values("Sec-WebSocket-Extensions")
}

func talkEcho(ctx context.Context, c *websocket.Conn) {
	c.Write(ctx, websocket.MessageText, []byte(`{"type":"session.update"}`))
	c.Read(ctx)
	// A fragmented message: each Write is a frame.
	w, _ := c.Writer(ctx, websocket.MessageText)
	w.Write([]byte("hello, "))
	w.Write([]byte("wörld"))
	w.Close()
	c.Read(ctx)
	c.Write(ctx, websocket.MessageBinary, []byte{0, 1, 2, 0xff})
	c.Read(ctx)
	// A ping needs a reader to see its pong: the Read below.
	pinged := make(chan error, 1)
	go func() { pinged <- c.Ping(ctx) }()
	time.Sleep(10 * time.Millisecond)
	c.Write(ctx, websocket.MessageText, []byte(strings.Repeat("compress me ", 200)))
	c.Read(ctx)
	<-pinged
	c.Write(ctx, websocket.MessageText, []byte("bye"))
	c.Read(ctx) // the server's close
}

func dataMessages(ms []Message) []string {
	var out []string
	for _, m := range ms {
		if m.Opcode == Text || m.Opcode == Binary {
			out = append(out, m.Opcode.String()+":"+string(m.Payload))
		}
	}
	return out
}

func TestDecodeBothDirections(t *testing.T) {
	for _, mode := range []websocket.CompressionMode{websocket.CompressionDisabled, websocket.CompressionContextTakeover, websocket.CompressionNoContextTakeover} {
		t.Run(map[websocket.CompressionMode]string{0: "plain", 1: "context-takeover", 2: "no-context-takeover"}[mode], func(t *testing.T) {
			fromServer, fromClient, ext := session(t, mode, talkEcho)
			want := []string{`text:{"type":"session.update"}`, "text:hello, wörld", "binary:\x00\x01\x02\xff", "text:" + strings.Repeat("compress me ", 200)}

			cm, cp := Decode(fromClient, Negotiated(ext, true))
			if len(cp) > 0 {
				t.Errorf("client problems: %v", cp)
			}
			if got := dataMessages(cm); !equal(got, append(want, "text:bye")) {
				t.Errorf("client messages %q", got)
			}
			sm, sp := Decode(fromServer, Negotiated(ext, false))
			if len(sp) > 0 {
				t.Errorf("server problems: %v", sp)
			}
			if got := dataMessages(sm); !equal(got, want) {
				t.Errorf("server messages %q", got)
			}
			last := sm[len(sm)-1]
			if last.Opcode != Close || last.CloseCode != 4000 || last.CloseReason != "done here" {
				t.Errorf("server's last message %+v, want close 4000", last)
			}
			var pings, frag int
			for _, m := range cm {
				if m.Opcode == Ping {
					pings++
				}
				if m.Frames > 1 {
					frag++
				}
			}
			if pings != 1 || frag == 0 {
				t.Errorf("client: %d pings, %d fragmented messages; want 1 and some", pings, frag)
			}
			if mode != websocket.CompressionDisabled {
				compressed := 0
				for _, m := range sm {
					if m.Compressed {
						compressed++
					}
				}
				if compressed == 0 {
					t.Error("no compressed server message, though deflate was negotiated")
				}
			}
			// Offsets tile the stream.
			var at int64
			for _, m := range sm {
				if m.Off < at {
					t.Fatalf("message at %d overlaps the one before (ends %d)", m.Off, at)
				}
				at = m.End
			}
			if at != int64(len(fromServer)) {
				t.Errorf("messages end at %d, stream is %d bytes", at, len(fromServer))
			}
		})
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDecodeProblems(t *testing.T) {
	frame := func(f ws.Frame) []byte { return ws.MustCompileFrame(f) }
	for _, tc := range []struct {
		name   string
		stream []byte
		opts   Options
		want   string
	}{
		{"unmasked client frame", frame(ws.NewTextFrame([]byte("hi"))), Options{FromClient: true}, "mask"},
		{"masked server frame", frame(ws.MaskFrame(ws.NewTextFrame([]byte("hi")))), Options{}, "mask"},
		{"continuation first", frame(ws.NewFrame(ws.OpContinuation, true, []byte("x"))), Options{}, "continuation"},
		{"truncated", frame(ws.NewTextFrame([]byte("hello")))[:4], Options{}, "ends inside a text frame"},
		{"open fragment", frame(ws.NewFrame(ws.OpText, false, []byte("x"))), Options{}, "ends inside a fragmented"},
		{"bad utf-8", frame(ws.NewTextFrame([]byte{0xff})), Options{}, "UTF-8"},
		{"close code 1005 on the wire", frame(ws.NewCloseFrame([]byte{0x03, 0xed})), Options{}, "close frame 1005"},
		{"compressed without deflate", func() []byte {
			f := ws.NewTextFrame([]byte("x"))
			f.Header.Rsv = ws.Rsv(true, false, false)
			return frame(f)
		}(), Options{}, "compression bit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, problems := Decode(tc.stream, tc.opts)
			var all []string
			for _, p := range problems {
				all = append(all, p.Error())
			}
			if !strings.Contains(strings.Join(all, "\n"), tc.want) {
				t.Errorf("problems %q, want one mentioning %q", all, tc.want)
			}
		})
	}
}

func TestSplitterCutsAtFrames(t *testing.T) {
	fromServer, fromClient, _ := session(t, websocket.CompressionContextTakeover, talkEcho)
	big := ws.MustCompileFrame(ws.NewBinaryFrame(bytes.Repeat([]byte{7}, 3000)))
	for _, stream := range [][]byte{fromServer, fromClient, append(append([]byte(nil), big...), fromServer...)} {
		msgs, _ := Decode(stream, Options{})
		for seed := range uint64(20) {
			r := rand.New(rand.NewPCG(seed, 1))
			s := Splitter{MaxChunk: 1024}
			var got [][]byte
			var frameStart, at int64
			keep := func(p Piece) {
				got = append(got, append([]byte(nil), p.Data...))
				// Each piece says where it lies in its frame.
				if p.Raw || p.At != at-frameStart || p.Last != (at+int64(len(p.Data)) == frameStart+p.Frame.FrameLen()) {
					t.Fatalf("seed %d: piece at %d of the frame at %d: %+v", seed, at, frameStart, p)
				}
				at += int64(len(p.Data))
				if p.Last {
					frameStart = at
				}
			}
			for rest := stream; len(rest) > 0; {
				n := 1 + r.IntN(min(len(rest), 700))
				s.Feed(rest[:n], keep)
				rest = rest[n:]
			}
			s.Flush(keep)
			if joined := bytes.Join(got, nil); !bytes.Equal(joined, stream) {
				t.Fatalf("seed %d: pieces do not join to the stream", seed)
			}
			// Every piece boundary is a frame boundary, except inside a
			// frame longer than MaxChunk.
			var off int64
			bounds := map[int64]bool{0: true}
			for rest := stream; len(rest) > 0; {
				h, err := ws.ReadHeader(bytes.NewReader(rest))
				if err != nil {
					t.Fatal(err)
				}
				n := int64(ws.HeaderSize(h)) + h.Length
				off += n
				bounds[off] = true
				rest = rest[n:]
			}
			off = 0
			for _, p := range got {
				off += int64(len(p))
				if !bounds[off] && len(p) != 1024 {
					t.Fatalf("seed %d: piece ending at %d (%d bytes) does not end a frame", seed, off, len(p))
				}
				if len(p) > 1024 {
					t.Fatalf("seed %d: piece of %d bytes exceeds MaxChunk", seed, len(p))
				}
			}
		}
		if len(msgs) == 0 {
			t.Fatal("no messages")
		}
	}
	var s Splitter
	s.Feed(fromClient, func(Piece) {})
	if !s.Close {
		t.Error("Splitter did not see the client's close frame")
	}
}

// hugeHeader is a binary frame header declaring a payload of 2^63−1 bytes
// (the largest RFC 6455 allows), masked when masked is set.
func hugeHeader(masked bool) []byte {
	h := []byte{0x82, 0x7f, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	if masked {
		h[1] |= 0x80
		h = append(h, 1, 2, 3, 4)
	}
	return h
}

// TestHugeLength: a header declaring 2^63−1 payload bytes made header size
// plus length wrap negative and the splitter slice with it (a panic that
// ended seam record). The splitter now hands out the frame's bytes as
// they come and the decoder reports a frame the stream ends inside.
func TestHugeLength(t *testing.T) {
	for _, masked := range []bool{false, true} {
		hostile := append(hugeHeader(masked), "then some bytes"...)
		for _, step := range []int{1, 3, len(hostile)} {
			var s Splitter
			var got []byte
			var pieces []Piece
			for rest := hostile; len(rest) > 0; rest = rest[min(step, len(rest)):] {
				s.Feed(rest[:min(step, len(rest))], func(p Piece) {
					got = append(got, p.Data...)
					pieces = append(pieces, p)
				})
			}
			s.Flush(func(p Piece) {
				got = append(got, p.Data...)
				pieces = append(pieces, p)
			})
			if !bytes.Equal(got, hostile) {
				t.Fatalf("masked %v, step %d: pieces %q do not join to the stream", masked, step, got)
			}
			if p := pieces[0]; p.Raw || p.Last || p.Frame.Length != 1<<63-1 || p.Frame.FrameLen() != 1<<63-1 {
				t.Errorf("masked %v, step %d: first piece %+v", masked, step, p)
			}
		}
		_, problems := Decode(hostile, Options{FromClient: masked})
		if len(problems) == 0 || !strings.Contains(problems[0].Msg, "9223372036854775807 payload bytes") {
			t.Errorf("masked %v: problems %v", masked, problems)
		}
	}
}
