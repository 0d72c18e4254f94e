package protocol

import (
	"strings"

	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/internal/jsontext"
	"github.com/seam-dev/seam/tape"
)

// Parse parses a side's chunks in the framing kind: ParseSide for SSE (and
// Unknown), a framing parser for the others. Events are mapped to chunks as
// ParseSide maps them; what the framing cannot read is kept in Problems.
func Parse(chunks []tape.Chunk, kind framing.Kind, twin *Side) *Side {
	if kind == framing.SSE || kind == framing.Unknown {
		return ParseSide(chunks, twin)
	}
	se := &Side{Chunks: chunks, Framing: kind}
	if len(chunks) == 0 {
		return se
	}
	base := chunks[0].Off
	size := 0
	for i := range chunks {
		size += len(chunks[i].Data)
	}
	// The body as one string, shared with the twin when it is the same:
	// each event's data is a substring of it.
	if twin != nil && len(twin.Body) == size && sameBytes(chunks, twin.Body) {
		se.Body = twin.Body
	} else {
		var sb strings.Builder
		sb.Grow(size)
		for i := range chunks {
			sb.Write(chunks[i].Data)
		}
		se.Body = sb.String()
	}
	var m chunkMap
	m.init(chunks)
	cur := 0
	p := framing.New(kind, func(pr framing.Problem) {
		pr.Off += base
		se.Problems = append(se.Problems, pr)
	})
	emit := func(f framing.Frame, data []byte) {
		var d string
		if f.DataOff >= 0 {
			d = se.Body[f.DataOff : f.DataOff+int64(len(data))]
		} else {
			d = string(data)
		}
		e := Event{
			Index: len(se.Events), Name: f.Name, Data: d, MessageType: f.MessageType,
			Chunk: m.at(f.Start + base), EndChunk: cur, Off: f.Start + base, End: f.End + base,
			T: chunks[cur].T, Terminated: f.Terminated,
		}
		if f.MessageType == "error" {
			// An unmodelled error carries its code and message in headers.
			e.Name, e.Data = f.Header(":error-code"), f.Header(":error-message")
		}
		se.Events = append(se.Events, e)
	}
	for i := range chunks {
		cur = i
		p.Feed(chunks[i].Data, emit)
	}
	p.Close(emit)
	return se
}

// sameBytes reports whether the chunks' bytes are body.
func sameBytes(chunks []tape.Chunk, body string) bool {
	at := 0
	for i := range chunks {
		d := chunks[i].Data
		if len(d) > len(body)-at || string(d) != body[at:at+len(d)] {
			return false
		}
		at += len(d)
	}
	return at == len(body)
}

// chunkMap finds the chunk holding a body offset, walking forward from the
// last hit while offsets grow and the chunks are in offset order.
type chunkMap struct {
	chunks []tape.Chunk
	sorted bool
	hint   int
}

func (m *chunkMap) init(chunks []tape.Chunk) {
	m.chunks, m.sorted, m.hint = chunks, true, 0
	for i := 1; i < len(chunks); i++ {
		if chunks[i].Off < chunks[i-1].Off {
			m.sorted = false
			return
		}
	}
}

func (m *chunkMap) at(off int64) int {
	c := m.chunks
	if !m.sorted || off < c[m.hint].Off {
		return tape.ChunkAt(c, off)
	}
	for m.hint+1 < len(c) && c[m.hint+1].Off <= off {
		m.hint++
	}
	return m.hint
}

// addBareJSON finds, between and after the SSE events of se, bytes that are
// not SSE but a bare JSON value (Gemini sends a mid-stream error as
// pretty-printed JSON with no "data:" prefix; docs/PROTOCOLS.md#gemini): an SSE
// client never sees them, the Gemini SDKs parse them. Each becomes an event
// marked Bare, in body order.
func addBareJSON(se *Side, base int64, bytesAt func(start, end int64) string) {
	var out []Event
	prev := base
	add := func(gapEnd int64) {
		if gapEnd <= prev {
			return
		}
		gap := bytesAt(prev, gapEnd)
		for at := 0; at < len(gap); {
			i := bareStart(gap, at)
			if i < 0 {
				break
			}
			end := jsonValueEnd(gap, i)
			if end < 0 {
				break
			}
			off := prev + int64(i)
			c := tape.ChunkAt(se.Chunks, off)
			ec := tape.ChunkAt(se.Chunks, prev+int64(end)-1)
			out = append(out, Event{Name: "", Data: gap[i:end], Chunk: c, EndChunk: ec, Off: off, End: prev + int64(end),
				T: se.Chunks[ec].T, Terminated: true, Bare: true, Quirks: "bare-json"})
			at = end
		}
	}
	events := se.Events
	merged := make([]Event, 0, len(events)+1)
	for _, e := range events {
		out = out[:0]
		add(e.Off)
		merged = append(merged, out...)
		merged = append(merged, e)
		prev = e.End
	}
	out = out[:0]
	last := se.Chunks[len(se.Chunks)-1]
	add(last.Off + int64(len(last.Data)))
	merged = append(merged, out...)
	if len(merged) == len(events) {
		return
	}
	for i := range merged {
		merged[i].Index = i
	}
	se.Events = merged
}

// bareStart returns the offset in gap, from at on, of the first line that
// starts (after blanks) with '{' or '[', or -1.
func bareStart(gap string, at int) int {
	for at < len(gap) {
		i := at
		for i < len(gap) && (gap[i] == ' ' || gap[i] == '\t') {
			i++
		}
		if i < len(gap) && (gap[i] == '{' || gap[i] == '[') {
			return i
		}
		nl := strings.IndexAny(gap[i:], "\r\n")
		if nl < 0 {
			return -1
		}
		at = i + nl + 1
	}
	return -1
}

// jsonValueEnd returns the end of the JSON object or array starting at i
// when one is complete and valid there, else -1.
func jsonValueEnd(s string, i int) int {
	end, _, ok := jsontext.ScanValue(s, i, 0)
	if !ok {
		return -1
	}
	return end
}
