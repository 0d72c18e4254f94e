package shape

import (
	"testing"

	"github.com/seam-dev/seam/sse"
)

// TestPushDoesNotAllocate: the identity engine, and the decoding engine once
// it has gone back to passing bytes through, cost no allocation per Push.
func TestPushDoesNotAllocate(t *testing.T) {
	body := readFile(t, realworld+"/pydantic-ai-openai-responses-stream.1.sse")
	chunks := sse.SplitEvents(body)
	raw := mustEngine(t, ProfileResponses, nil)
	dst := make([][]byte, 0, 8)
	dst = raw.Push(dst[:0], chunks[0])
	if s, ok := raw.(*shaper); !ok || s.state != stateRaw {
		t.Fatalf("the responses profile on a Responses upstream is %T, not a raw decoding engine", raw)
	}
	if len(dst) != 1 || string(dst[0]) != string(chunks[0]) {
		t.Fatalf("first event not given back as it came: %q", dst)
	}
	for _, tc := range []struct {
		name string
		e    Engine
	}{{"passthrough", mustEngine(t, ProfilePassthrough, nil)}, {"raw", raw}} {
		i := 1
		n := testing.AllocsPerRun(100, func() {
			dst = tc.e.Push(dst[:0], chunks[i])
			i = 1 + i%(len(chunks)-1)
		})
		if n != 0 {
			t.Errorf("%s: Push allocates %v times", tc.name, n)
		}
	}
}

// maxAllocsPerEvent bounds the allocations of the obsidian-xml engine per
// normalized event on the incident stream, engine construction included.
// Most are the SSE parser's one string per upstream event.
const maxAllocsPerEvent = 1.2

func TestObsidianXMLAllocsPerEvent(t *testing.T) {
	body := incidentBody(t)
	chunks := sse.SplitEvents(body)
	cfg, err := Resolve(ProfileObsidianXML, nil)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([][]byte, 0, 8)
	allocs := testing.AllocsPerRun(20, func() {
		e, err := New(cfg, sseExchange)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range chunks {
			dst = e.Push(dst[:0], c)
		}
		dst = e.Close(dst[:0])
	})
	n := countEvents(body)
	if per := allocs / float64(n); per > maxAllocsPerEvent {
		t.Errorf("%v allocations for %d events: %.3f per event, want ≤ %v", allocs, n, per, maxAllocsPerEvent)
	} else {
		t.Logf("%v allocations for %d events: %.3f per event", allocs, n, per)
	}
}
