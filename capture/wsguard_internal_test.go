package capture

import (
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
