package protocol

import (
	"testing"

	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/tape"
)

// TestEventsMapToTheirChunks: every event and comment names the chunk
// holding its first byte (a chunk's first byte included, the boundary
// case), the chunk that completed it and that chunk's time, for SSE and a
// framed body alike.
func TestEventsMapToTheirChunks(t *testing.T) {
	mk := func(parts ...string) []tape.Chunk {
		var cs []tape.Chunk
		off := int64(0)
		for i, p := range parts {
			cs = append(cs, tape.Chunk{Ex: 1, Side: tape.Upstream, T: int64(i+1) * 1e6, Off: off, Data: []byte(p)})
			off += int64(len(p))
		}
		return cs
	}
	type want struct{ chunk, end int }
	check := func(name string, se *Side, ws []want) {
		t.Helper()
		if len(se.Events) != len(ws) {
			t.Fatalf("%s: %d events, want %d", name, len(se.Events), len(ws))
		}
		for i, w := range ws {
			e := se.Events[i]
			if e.Chunk != w.chunk || e.EndChunk != w.end || e.T != se.Chunks[w.end].T {
				t.Errorf("%s: event %d in chunks %d-%d at %d, want %d-%d at %d", name, i, e.Chunk, e.EndChunk, e.T, w.chunk, w.end, se.Chunks[w.end].T)
			}
		}
	}
	// Chunk 1 starts with a comment, chunk 2 with an event, event 2 spans
	// chunks 2 and 3.
	sse := mk("data: a\n\n", ": ping\ndata: b\n\n", "data: c", "c\n\ndata: d\n\n")
	se := ParseSide(sse, nil)
	check("sse", se, []want{{0, 0}, {1, 1}, {2, 3}, {3, 3}})
	if len(se.Comments) != 1 || se.Comments[0].Chunk != 1 {
		t.Errorf("comments %+v, want one in chunk 1", se.Comments)
	}
	nd := mk(`{"a":1}`+"\n", `{"b":2}`+"\n"+`{"c"`, `:3}`+"\n")
	check("ndjson", Parse(nd, framing.NDJSON, nil), []want{{0, 0}, {1, 1}, {1, 2}})
}
