package inspect

import (
	"bytes"

	"github.com/seam-dev/seam/sse"
	"github.com/seam-dev/seam/tape"
)

// parseSide parses a side's chunks with the sse package's spec parser and
// maps every event to the chunk holding its first byte (Chunk), the chunk
// that completed it (EndChunk) and that chunk's time (T). Comment lines are
// collected with their positions.
func parseSide(chunks []tape.Chunk) *sideEvents {
	se := &sideEvents{chunks: chunks}
	if len(chunks) == 0 {
		return se
	}
	base := chunks[0].Off
	// Every event takes at least two line feeds (a field line and a blank
	// line) in the common framing: size the list once.
	lines := 0
	for i := range chunks {
		lines += bytes.Count(chunks[i].Data, []byte{'\n'})
	}
	se.Events = make([]Event, 0, lines/2+1)
	cur := 0
	var p sse.Parser
	p.OnComment = func(text string, off int64) {
		off += base
		se.Comments = append(se.Comments, Comment{Text: text, Off: off, Chunk: chunkAt(chunks, off), T: chunks[cur].T})
	}
	emit := func(e sse.Event) {
		off := e.Start + base
		se.Events = append(se.Events, Event{
			Index: len(se.Events), Name: e.Type, Data: e.Data,
			Chunk: chunkAt(chunks, off), EndChunk: cur, Off: off, End: e.End + base,
			T: chunks[cur].T, Terminated: e.Terminated, Quirks: e.Quirks.String(),
		})
	}
	for i := range chunks {
		cur = i
		p.Feed(chunks[i].Data, emit)
	}
	p.Close(emit)
	return se
}
