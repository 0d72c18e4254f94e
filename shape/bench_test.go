package shape

import (
	"testing"

	"github.com/seam-dev/seam/sse"
)

// countEvents returns how many normalized events the upstream body (Chat
// Completions) decodes to.
func countEvents(body []byte) int { return len(decodeAll(&chatDecoder{}, string(body))) }

// BenchmarkObsidianXML measures normalized events per second through the
// obsidian-xml profile on the incident stream, fed one upstream event per
// Push as a proxy would read it.
func BenchmarkObsidianXML(b *testing.B) {
	body := incidentBody(b)
	chunks := sse.SplitEvents(body)
	n := countEvents(body)
	cfg, err := Resolve(ProfileObsidianXML, nil)
	if err != nil {
		b.Fatal(err)
	}
	dst := make([][]byte, 0, 8)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		e, err := New(cfg, sseExchange)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range chunks {
			dst = e.Push(dst[:0], c)
		}
		dst = e.Close(dst[:0])
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
