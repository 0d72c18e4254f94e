package record

import (
	"bytes"
	"io"
	"net/url"
	"strings"
	"testing"

	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/wsframe"
)

// BenchmarkWebSocketRecord records one direction of a Realtime session as
// the recorder does, the bytes arriving in 1,000-byte reads: 2,000 text
// messages of about 300 bytes, every tenth in three fragments, masked as
// a client sends them (compressed when deflate is set), each checked for
// the request's secret values.
func BenchmarkWebSocketRecord(b *testing.B) {
	for _, deflate := range []bool{false, true} {
		name := map[bool]string{false: "plain", true: "deflate"}[deflate]
		b.Run(name, func(b *testing.B) {
			msg := []byte(`{"type":"input_audio_buffer.append","audio":"` + strings.Repeat("QUJD", 60) + `"}`)
			mask := [4]byte{1, 2, 3, 4}
			var stream []byte
			for i := range 2000 {
				payload := msg
				if deflate {
					payload = wsframe.Deflate(nil, msg)
				}
				if i%10 == 0 {
					third := len(payload) / 3
					stream = wsframe.AppendFrame(stream, wsframe.Header{Rsv1: deflate, Opcode: wsframe.Text, Masked: true, Mask: mask}, payload[:third])
					stream = wsframe.AppendFrame(stream, wsframe.Header{Opcode: wsframe.Continuation, Masked: true, Mask: mask}, payload[third:2*third])
					stream = wsframe.AppendFrame(stream, wsframe.Header{Fin: true, Opcode: wsframe.Continuation, Masked: true, Mask: mask}, payload[2*third:])
					continue
				}
				stream = wsframe.AppendFrame(stream, wsframe.Header{Fin: true, Rsv1: deflate, Opcode: wsframe.Text, Masked: true, Mask: mask}, payload)
			}
			up, _ := url.Parse("https://api.openai.com")
			w := tape.NewWriter(io.Discard, tape.WriterOptions{})
			rec, err := New(Options{Upstream: up, Writer: w})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for b.Loop() {
				x := &exchange{rec: rec, ex: 1, tw: w.Exchange(1)}
				x.masks([]string{"Bearer sk-never-on-disk-0123", "sk-never-on-disk-0123"})
				c := &wsConn{x: x}
				c.down.side = tape.Client
				c.down.guard = newWSGuard(x, c, tape.Client, wsframe.Options{FromClient: true, Deflate: deflate})
				for off := 0; off < len(stream); off += 1000 {
					c.down.record(x, stream[off:min(off+1000, len(stream))], nil)
				}
				c.down.finish(x)
			}
		})
	}
}

// TestWebSocketHeldBudget: what WebSocket messages hold back beyond their
// first MiB comes from one budget for all the recorder's connections: a
// connection sending a message bigger than what is left has the rest of
// its side withheld, with a note naming the budget, and the budget comes
// back whole once its messages are recorded or withheld.
func TestWebSocketHeldBudget(t *testing.T) {
	up, _ := url.Parse("https://api.openai.com")
	var out bytes.Buffer
	w := tape.NewWriter(&out, tape.WriterOptions{})
	w.Header(tape.Header{V: tape.Version})
	rec, err := New(Options{Upstream: up, Writer: w})
	if err != nil {
		t.Fatal(err)
	}
	rec.wsHeld.left = 2 << 20
	small := wsframe.AppendFrame(nil, wsframe.Header{Fin: true, Opcode: wsframe.Binary}, make([]byte, 1500<<10))
	big := wsframe.AppendFrame(nil, wsframe.Header{Fin: true, Opcode: wsframe.Binary}, make([]byte, 4<<20))
	for i, stream := range [][]byte{small, big} {
		x := &exchange{rec: rec, ex: i + 1, tw: w.Exchange(i + 1)}
		x.masks(nil)
		c := &wsConn{x: x}
		c.up.side = tape.Upstream
		c.up.guard = newWSGuard(x, c, tape.Upstream, wsframe.Options{})
		for off := 0; off < len(stream); off += 64 << 10 {
			c.up.record(x, stream[off:min(off+64<<10, len(stream))], nil)
		}
		c.up.finish(x)
		x.tw.End(tape.Upstream, 1, tape.Complete, "")
		x.tw.End(tape.Client, 1, tape.Complete, "")
		if rec.wsHeld.left != 2<<20 {
			t.Errorf("exchange %d: the budget has %d bytes left after it, not all 2 MiB", i+1, rec.wsHeld.left)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := tape.Read(&out, "budget")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Exchanges[0].Upstream.Body(); !bytes.Equal(got, small) {
		t.Errorf("the message within the budget: %d bytes recorded, want %d", len(got), len(small))
	}
	x := c.Exchanges[1]
	if e := x.Upstream.End; len(x.Upstream.Chunks) != 0 || e.Unrecorded != int64(len(big)) {
		t.Errorf("the message past the budget: %d chunks, end %+v", len(x.Upstream.Chunks), e)
	}
	if len(x.Notes) != 1 || !strings.Contains(x.Notes[0].Text, "took the 268435456 bytes seam gives them") {
		t.Errorf("notes %+v", x.Notes)
	}
}
