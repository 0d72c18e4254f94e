package sse

import (
	"bytes"
	"os"
	"testing"
)

// benchStream is a realistic OpenAI Chat Completions stream (181 events),
// repeated to about 1 MB.
func benchStream(b *testing.B) []byte {
	b.Helper()
	one, err := os.ReadFile(realworld + "/openai-chat-long-text.sse")
	if err != nil {
		b.Fatal(err)
	}
	return bytes.Repeat(one, 1<<20/len(one)+1)
}

// BenchmarkParser feeds the stream in 1 KiB reads, as a proxy would see it.
func BenchmarkParser(b *testing.B) {
	stream := benchStream(b)
	chunks := splitEvery(stream, 1024)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	n := 0
	emit := func(e Event) { n += len(e.Data) }
	for b.Loop() {
		var p Parser
		for _, c := range chunks {
			p.Feed(c, emit)
		}
		p.Close(emit)
	}
}

// BenchmarkReader reads the same stream through Reader.
func BenchmarkReader(b *testing.B) {
	stream := benchStream(b)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(bytes.NewReader(stream))
		for _, err := range r.All() {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkParserView is BenchmarkParser through FeedView, for consumers
// that decode each event's data at once instead of keeping a string.
func BenchmarkParserView(b *testing.B) {
	stream := benchStream(b)
	chunks := splitEvery(stream, 1024)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	n := 0
	emit := func(e Event, data []byte) { n += len(data) }
	for b.Loop() {
		var p Parser
		for _, c := range chunks {
			p.FeedView(c, emit)
		}
		p.CloseView(emit)
	}
}
