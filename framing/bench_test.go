package framing

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkEventStream parses the recorded Bedrock bodies in 1 KiB reads.
func BenchmarkEventStream(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(providers, "bedrock", "*.eventstream"))
	var bodies [][]byte
	size := 0
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		bodies = append(bodies, body)
		size += len(body)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	emit := func(Frame, []byte) {}
	for b.Loop() {
		for _, body := range bodies {
			p := New(EventStream, nil)
			for off := 0; off < len(body); off += 1024 {
				p.Feed(body[off:min(off+1024, len(body))], emit)
			}
			p.Close(emit)
		}
	}
}

// BenchmarkJSONArray parses the recorded Gemini JSON array body (pretty
// printed, as the API sends it) in 64-byte reads.
func BenchmarkJSONArray(b *testing.B) {
	body, err := os.ReadFile(filepath.Join(providers, "gemini", "gemini-langchaingo-json-array-stream.body.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	emit := func(Frame, []byte) {}
	for b.Loop() {
		p := New(JSONArray, nil)
		for off := 0; off < len(body); off += 64 {
			p.Feed(body[off:min(off+64, len(body))], emit)
		}
		p.Close(emit)
	}
}
