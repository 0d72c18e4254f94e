package protocol

import (
	"path/filepath"
	"testing"

	"github.com/seam-dev/seam/internal/streamtest"
	"github.com/seam-dev/seam/tape"
)

// The benchmarks that justify protocol's decoding through jsontext's
// Scanner, a hand-written single-pass JSON reader beside gjson: each
// decodes the event payloads of the recorded streams once with the scanner
// and once with the gjson reference decoders it replaced
// (decode_ref_test.go), which decode_test.go checks it against.
// Measured on 2 cores, 2026-11-24 (go test ./protocol -run XXX -bench
// Decode -count 3): Chat chunks 850–910 MB/s with the scanner against
// 290–320 MB/s with gjson's Valid + ForEach (about 2.9 times as fast);
// Responses and Anthropic events 900–1,430 MB/s against 560–800 MB/s
// (about 1.7 times).
// If a gjson release closes that gap, the scanner should go.

// benchPayloads returns the event payloads of the recorded streams whose
// names match pattern, and their total size.
func benchPayloads(b *testing.B, pattern string) ([]string, int64) {
	b.Helper()
	files, err := filepath.Glob(filepath.Join(streamtest.Realworld, pattern))
	if err != nil || len(files) == 0 {
		b.Fatalf("no recorded streams match %s: %v", pattern, err)
	}
	var out []string
	var n int64
	for _, f := range files {
		for _, e := range ParseSide(chunksOf(tape.Upstream, readTestdata(b, filepath.Base(f)), 0), nil).Events {
			out = append(out, e.Data)
			n += int64(len(e.Data))
		}
	}
	return out, n
}

func BenchmarkDecodeChatScanner(b *testing.B) {
	data, n := benchPayloads(b, "openai-chat-*.sse")
	b.SetBytes(n)
	for b.Loop() {
		s := &ChatSide{chunks: make([]ChatChunk, len(data))}
		for i, d := range data {
			s.decodeChunk(&s.chunks[i], d)
		}
	}
}

func BenchmarkDecodeChatReference(b *testing.B) {
	data, n := benchPayloads(b, "openai-chat-*.sse")
	b.SetBytes(n)
	for b.Loop() {
		s := &ChatSide{chunks: make([]ChatChunk, len(data))}
		for i, d := range data {
			s.refDecodeChunk(&s.chunks[i], d)
		}
	}
}

// objPattern matches the Responses (pydantic-ai-*) and Anthropic
// (anthropic-sdk-*) streams.
const objPattern = "[pa][yn]*.sse"

func BenchmarkDecodeObjScanner(b *testing.B) {
	data, n := benchPayloads(b, objPattern)
	b.SetBytes(n)
	for b.Loop() {
		var o ObjEvent
		for _, d := range data {
			o = ObjEvent{}
			decodeObjEvent(&o, d)
		}
	}
}

func BenchmarkDecodeObjReference(b *testing.B) {
	data, n := benchPayloads(b, objPattern)
	b.SetBytes(n)
	for b.Loop() {
		var o refObjEvent
		for _, d := range data {
			o = refObjEvent{}
			refDecodeObjEvent(&o, d)
		}
	}
}
