package protocol

import (
	"testing"

	"github.com/seam-dev/seam/sse"
)

// BenchmarkWatch follows a recorded Chat Completions stream read one event
// per read, as the recorder's terminal watch does on its read path.
func BenchmarkWatch(b *testing.B) {
	parts := sse.SplitEvents(readTestdata(b, "openai-chat-long-text.sse"))
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		w := NewWatch("text/event-stream", "/v1/chat/completions")
		for _, p := range parts {
			w.Feed(p)
		}
		w.Close()
		if !w.Terminal() {
			b.Fatal("no terminal")
		}
	}
}
