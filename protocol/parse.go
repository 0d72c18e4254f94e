package protocol

import (
	"bytes"
	"strings"

	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/sse"
	"github.com/seam-dev/seam/tape"
)

// ParseSide parses a side's chunks with the sse package's spec parser and
// maps every event to the chunk holding its first byte (Chunk), the chunk
// that completed it (EndChunk) and that chunk's time (T). Comment lines are
// collected with their positions.
//
// twin is the other side of the exchange, if parsed already (else nil): the
// events' data in the body prefix both sides share is taken from the twin's
// body string instead of a new copy, and the payloads the twin decoded are
// reused for the events both sides share.
func ParseSide(chunks []tape.Chunk, twin *Side) *Side {
	se := &Side{Chunks: chunks, twin: twin}
	if len(chunks) == 0 {
		return se
	}
	base := chunks[0].Off
	size := 0
	for i := range chunks {
		size += len(chunks[i].Data)
	}
	// The side's body as one string: an event's data that is a single data
	// line is the tail of its block, so Data is a substring of it instead of
	// a string allocated per event. The first shared bytes, the prefix the
	// body has in common with the twin's, come from the twin's string; own
	// holds the rest, from offset shared on.
	shared, ci := twinPrefix(chunks, twin)
	if shared == size && sameSplit(chunks, twin) {
		// The same bytes in the same chunks: the same events, but for the
		// times of this side's chunks.
		se.Body, se.mirror = twin.Body[:shared], twin
		se.Events = append(make([]Event, 0, len(twin.Events)), twin.Events...)
		for i := range se.Events {
			se.Events[i].T = chunks[se.Events[i].EndChunk].T
		}
		return se
	}
	se.Events = make([]Event, 0, eventsIn(chunks, size))
	var sb strings.Builder
	sb.Grow(size - shared)
	for i := ci; i < len(chunks); i++ {
		sb.Write(chunks[i].Data)
	}
	own := sb.String()
	if shared == 0 {
		se.Body = own
	} else if shared == size {
		se.Body = twin.Body[:shared]
	}
	block := func(start, end int64) string {
		switch {
		case end <= int64(shared):
			return twin.Body[start:end]
		case start >= int64(shared):
			return own[start-int64(shared) : end-int64(shared)]
		}
		return ""
	}
	parseSSE(se, block)
	if hasGap(se.Events, base, base+int64(size)) {
		addBareJSON(se, base, func(start, end int64) string {
			if b := block(start-base, end-base); b != "" {
				return b
			}
			return bodyRange(chunks, start, end)
		})
	}
	return se
}

// eventsIn estimates how many events a body of size bytes in chunks
// holds, to size the event list once: every event takes at least two line
// feeds (a field line and a blank line) in the common framing, counted in
// the first chunks (up to eventSample bytes) and scaled to the whole body.
// Counting them all costs a call per chunk, and a stream at an LLM's pace
// comes as hundreds of chunks of an event each.
func eventsIn(chunks []tape.Chunk, size int) int {
	lines, seen := 0, 0
	for i := 0; i < len(chunks) && seen < eventSample; i++ {
		lines += bytes.Count(chunks[i].Data, []byte{'\n'})
		seen += len(chunks[i].Data)
	}
	if seen == 0 {
		return 1
	}
	// A quarter more than the sample says, so a body whose events grow
	// shorter after the first still fits without growing.
	return int(int64(lines)*int64(size)*5/(int64(seen)*8)) + 1
}

// eventSample is how many leading bytes of a side eventsIn counts line
// feeds in.
const eventSample = 4096

// twinPrefix returns how many leading bytes of the body chunks carry are
// the twin's (its Body's first bytes), and the index of the first chunk
// not wholly among them.
func twinPrefix(chunks []tape.Chunk, twin *Side) (shared, ci int) {
	if twin == nil {
		return 0, 0
	}
	tb := twin.Body
	// While the chunks are the twin's cut at the same places, each is
	// compared with the twin's chunk, not its copy in the body: a reader
	// hands a pass-through client chunk over as the very memory of the
	// upstream chunk it refers to, which compares equal without reading it.
	inStep := len(twin.Chunks) == len(chunks)
	for ; ci < len(chunks); ci++ {
		d := chunks[ci].Data
		if len(d) > len(tb)-shared {
			break
		}
		if inStep && len(twin.Chunks[ci].Data) == len(d) && bytes.Equal(d, twin.Chunks[ci].Data) {
			shared += len(d)
			continue
		}
		inStep = false
		if string(d) != tb[shared:shared+len(d)] {
			break
		}
		shared += len(d)
	}
	return shared, ci
}

// parseSSE parses the side's chunks as SSE into its events, comments and
// ignored fields; block(start, end) returns the body's bytes between two
// offsets from the first chunk's, "" when it cannot give them as a
// substring.
func parseSSE(se *Side, block func(start, end int64) string) {
	chunks := se.Chunks
	base := chunks[0].Off
	// Offsets only grow, so the chunk lookups walk forward from the last
	// hit (chunkMap), one walk for the events and one for the comments.
	var evChunk chunkMap
	evChunk.init(chunks)
	cmChunk := evChunk
	// Most events of a side share one quirk set; render it once.
	var lastQ sse.Quirk
	lastQS := ""
	cur := 0
	var p sse.Parser
	p.OnComment = func(text string, off int64) {
		off += base
		se.Comments = append(se.Comments, Comment{Text: text, Off: off, Chunk: cmChunk.at(off), T: chunks[cur].T})
	}
	p.OnField = func(name, value string, off int64) {
		if len(se.Fields) == MaxFields {
			se.FieldsMore++
			return
		}
		off += base
		if len(value) > MaxFieldValue {
			value = strings.ToValidUTF8(value[:MaxFieldValue], "")
		}
		se.Fields = append(se.Fields, Field{Name: name, Value: value, Off: off, Chunk: tape.ChunkAt(chunks, off), T: chunks[cur].T})
	}
	emit := func(e sse.Event, data []byte) {
		off := e.Start + base
		if e.Quirks != lastQ {
			lastQ, lastQS = e.Quirks, e.Quirks.String()
		}
		se.Events = append(se.Events, Event{
			Index: len(se.Events), Name: e.Type, Data: dataString(block(e.Start, e.End), data),
			Chunk: evChunk.at(off), EndChunk: cur, Off: off, End: e.End + base,
			T: chunks[cur].T, Terminated: e.Terminated, Quirks: lastQS,
		})
	}
	for i := range chunks {
		cur = i
		p.FeedView(chunks[i].Data, emit)
	}
	p.CloseView(emit)
}

// hasGap reports whether some bytes of the body from start to end lie
// outside every event (between two, before the first or after the last).
func hasGap(events []Event, start, end int64) bool {
	prev := start
	for i := range events {
		if events[i].Off != prev {
			return true
		}
		prev = events[i].End
	}
	return prev != end
}

// bodyRange copies the body bytes from start to end out of the chunks.
func bodyRange(chunks []tape.Chunk, start, end int64) string {
	var b strings.Builder
	for i := tape.ChunkAt(chunks, start); i < len(chunks) && chunks[i].Off < end; i++ {
		c := chunks[i]
		lo := max(start-c.Off, 0)
		hi := min(end-c.Off, int64(len(c.Data)))
		if lo < hi {
			b.Write(c.Data[lo:hi])
		}
	}
	return b.String()
}

// dataString returns data as a string: a substring of block, the event's
// bytes in the body, when the block (line endings trimmed) ends with it,
// as it does for the common single data line, and a copy otherwise.
func dataString(block string, data []byte) string {
	end := len(block)
	for end > 0 && (block[end-1] == '\n' || block[end-1] == '\r') {
		end--
	}
	if start := end - len(data); start >= 0 && block[start:end] == string(data) {
		return block[start:end]
	}
	return string(data)
}

// sameSplit reports whether chunks, whose bytes are those of twin's, are
// cut at the same offsets, and twin, parsed as SSE too (not another
// framing), has no comments nor ignored fields (their times depend on the
// chunk the line ended in, which Comment and Field do not record).
func sameSplit(chunks []tape.Chunk, twin *Side) bool {
	if twin == nil || twin.Framing != framing.Unknown || len(twin.Comments) > 0 || len(twin.Fields) > 0 || len(chunks) != len(twin.Chunks) {
		return false
	}
	for i := range chunks {
		if chunks[i].Off != twin.Chunks[i].Off || len(chunks[i].Data) != len(twin.Chunks[i].Data) {
			return false
		}
	}
	return true
}
