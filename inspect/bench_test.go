package inspect

import (
	"testing"

	"github.com/seam-dev/seam/tape"
)

// BenchmarkInspect inspects a capture of realistic exchanges: the real
// Codex token stream as a Chat Completions stream on both sides (the
// incident variant on the client side), repeated.
func BenchmarkInspect(b *testing.B) {
	up := codexDeltas(b)
	client, _ := incidentDeltas(up)
	c := &tape.Capture{Name: "bench"}
	var size int64
	for i := 1; i <= 20; i++ {
		x := chatExchange(i, `{"model":"m","stream":true,"messages":[{"role":"user","content":"weather note"}]}`, chatStream(tape.Upstream, up), chatStream(tape.Client, client))
		for _, s := range []*tape.SideData{&x.Upstream, &x.Client} {
			for _, ch := range s.Chunks {
				size += int64(len(ch.Data))
			}
		}
		c.Exchanges = append(c.Exchanges, x)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		Inspect(c, Options{})
	}
}
