package shape

import (
	"testing"

	"github.com/seam-dev/seam/sse"
)

// countEvents returns how many normalized events the upstream body decodes to.
func countEvents(body []byte) int {
	var p sse.Parser
	var d chatDecoder
	var m Meta
	var evs []Event
	n := 0
	f := func(ev sse.Event) { evs = d.decode(evs[:0], &ev, &m); n += len(evs) }
	p.Feed(body, f)
	p.Close(f)
	return n + len(d.finish(nil))
}

// BenchmarkObsidianXML measures normalized events per second through the
// obsidian-xml profile on the incident stream, fed one upstream event per
// Push as a proxy would read it.
func BenchmarkObsidianXML(b *testing.B) {
	body := incidentBody(b)
	chunks := perEvent(body)
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
