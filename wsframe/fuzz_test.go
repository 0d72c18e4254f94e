package wsframe

import (
	"bytes"
	"testing"

	"github.com/gobwas/ws"
)

// fuzzSeeds are a few streams of each kind: plain, masked, fragmented,
// compressed, control frames, a cut frame and a hostile length.
func fuzzSeeds() [][]byte {
	frame := func(f ws.Frame) []byte { return ws.MustCompileFrame(f) }
	compressed := AppendFrame(nil, Header{Fin: true, Rsv1: true, Opcode: Text}, Deflate(nil, bytes.Repeat([]byte("ab"), 300)))
	return [][]byte{
		frame(ws.NewTextFrame([]byte(`{"type":"session.created"}`))),
		frame(ws.MaskFrame(ws.NewTextFrame([]byte(`{"type":"response.create"}`)))),
		append(frame(ws.NewFrame(ws.OpText, false, []byte("hel"))), append(frame(ws.NewPingFrame([]byte("p"))), frame(ws.NewFrame(ws.OpContinuation, true, []byte("lo")))...)...),
		append(compressed, frame(ws.NewCloseFrame(ws.NewCloseFrameBody(ws.StatusInternalServerError, "boom")))...),
		frame(ws.NewBinaryFrame(make([]byte, 300)))[:200],
		{0x82, 0x7f, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 'x'},
	}
}

// FuzzSplitter: whatever the stream and however it arrives, the pieces a
// Splitter hands out join to the stream, none is longer than MaxChunk,
// and each says truly where it lies in its frame.
func FuzzSplitter(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s, uint16(3), uint16(64))
	}
	f.Fuzz(func(t *testing.T, stream []byte, step, maxChunk uint16) {
		s := Splitter{MaxChunk: ws.MaxHeaderSize + int(maxChunk%2048)}
		var got []byte
		var frameAt int64 // where the current frame began in the stream
		keep := func(p Piece) {
			if len(p.Data) == 0 || len(p.Data) > s.MaxChunk {
				t.Fatalf("piece of %d bytes (MaxChunk %d)", len(p.Data), s.MaxChunk)
			}
			at := int64(len(got))
			got = append(got, p.Data...)
			if p.Raw {
				return
			}
			if p.At == 0 {
				frameAt = at
			}
			if p.At != at-frameAt || p.Last != (int64(len(got))-frameAt == p.Frame.FrameLen()) {
				t.Fatalf("piece at %d of the frame at %d says %+v", at, frameAt, p)
			}
		}
		n := 1 + int(step%512)
		for rest := stream; len(rest) > 0; rest = rest[min(n, len(rest)):] {
			s.Feed(rest[:min(n, len(rest))], keep)
		}
		s.Flush(keep)
		if !bytes.Equal(got, stream) {
			t.Fatalf("pieces join to %q, not the stream", got)
		}
	})
}

// FuzzDecode: whatever the stream, decoding ends within its caps, with
// messages inside it, and Walk and Decode agree.
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds() {
		for flags := range byte(8) {
			f.Add(s, flags)
		}
	}
	f.Fuzz(func(t *testing.T, stream []byte, flags byte) {
		o := Options{FromClient: flags&1 != 0, Deflate: flags&2 != 0, NoContextTakeover: flags&4 != 0,
			MaxMessage: 1 << 16, MaxInflate: 1 << 18}
		msgs, problems := Decode(stream, o)
		for _, m := range msgs {
			if m.Off < 0 || m.End < m.Off || m.End > int64(len(stream)) {
				t.Fatalf("message %d–%d in a stream of %d bytes", m.Off, m.End, len(stream))
			}
			if m.Compressed && !m.Deflated && len(m.Payload) > o.MaxMessage {
				t.Fatalf("a message inflated to %d bytes, past the cap", len(m.Payload))
			}
		}
		if len(problems) > MaxProblems+1 {
			t.Fatalf("%d problems", len(problems))
		}
		n := 0
		_, inflated := Walk(stream, o, func(*Message) { n++ })
		if n != len(msgs) || inflated > o.MaxInflate+int64(o.MaxMessage) {
			t.Fatalf("Walk: %d messages (Decode %d), %d bytes inflated", n, len(msgs), inflated)
		}
	})
}
