package wsframe

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gobwas/ws"
)

// clientStream is a client direction of 2,000 masked text messages of
// about 300 bytes, every tenth sent in three fragments.
func clientStream() []byte {
	var stream bytes.Buffer
	msg := []byte(`{"type":"input_audio_buffer.append","audio":"` + strings.Repeat("QUJD", 60) + `"}`)
	for i := range 2000 {
		if i%10 == 0 {
			third := len(msg) / 3
			stream.Write(ws.MustCompileFrame(ws.MaskFrame(ws.NewFrame(ws.OpText, false, msg[:third]))))
			stream.Write(ws.MustCompileFrame(ws.MaskFrame(ws.NewFrame(ws.OpContinuation, false, msg[third:2*third]))))
			stream.Write(ws.MustCompileFrame(ws.MaskFrame(ws.NewFrame(ws.OpContinuation, true, msg[2*third:]))))
			continue
		}
		stream.Write(ws.MustCompileFrame(ws.MaskFrame(ws.NewTextFrame(msg))))
	}
	return stream.Bytes()
}

// BenchmarkDecode decodes clientStream, as inspect reads a recorded
// direction.
func BenchmarkDecode(b *testing.B) {
	stream := clientStream()
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		msgs, problems := Decode(stream, Options{FromClient: true})
		if len(msgs) != 2000 || len(problems) > 0 {
			b.Fatalf("%d messages, problems %v", len(msgs), problems)
		}
	}
}

// BenchmarkSplitter cuts clientStream, arriving in 1,000-byte reads, into
// frames, as the recorder does on a WebSocket connection.
func BenchmarkSplitter(b *testing.B) {
	stream := clientStream()
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		var s Splitter
		pieces := 0
		for off := 0; off < len(stream); off += 1000 {
			s.Feed(stream[off:min(off+1000, len(stream))], func(Piece) { pieces++ })
		}
		if pieces != 2400 {
			b.Fatalf("%d pieces, want 2400 (one a frame)", pieces)
		}
	}
}
