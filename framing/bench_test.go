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
