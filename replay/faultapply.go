package replay

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/seam-dev/seam/sse"
	"github.com/seam-dev/seam/tape"
)

// plan is a faulted recording to send: the chunks, and the extra wall
// time to wait before each (on top of its recorded time, whatever the
// speed) and before the response line.
type plan struct {
	chunks []tape.Chunk
	extra  []time.Duration
	head   time.Duration
}

// shifted returns the plan's chunks with the extra waits added to their
// recorded times, for an offline replay.
func (p plan) shifted() []tape.Chunk {
	out := slices.Clone(p.chunks)
	for i := range out {
		out[i].T += int64(p.extra[i])
	}
	return out
}

// applyFaults plans the chunks to send. Event-level faults re-cut the body
// at event boundaries first, keeping each event's recorded time; timing
// faults apply last, to the chunks the others leave.
func applyFaults(chunks []tape.Chunk, faults []Fault, rng *rand.Rand) plan {
	var timing []Fault
	for _, f := range faults {
		switch f.Kind {
		case FaultLatency, FaultStall, FaultJitter:
			timing = append(timing, f)
		default:
			chunks = reshape(chunks, f, rng)
		}
	}
	p := plan{chunks: chunks, extra: make([]time.Duration, len(chunks))}
	for _, f := range timing {
		p = p.delay(f, rng)
	}
	return p
}

// delay applies one timing fault to the plan.
func (p plan) delay(f Fault, rng *rand.Rand) plan {
	switch f.Kind {
	case FaultLatency:
		p.head += f.D
		for i := range p.extra {
			p.extra[i] += f.D
		}
	case FaultStall:
		if len(p.chunks) == 0 {
			return p
		}
		from := 0
		switch f.At {
		case "chunk":
			from = min(f.N, len(p.chunks))
		case "byte":
			p, from = p.cutAt(int64(f.N))
		default:
			starts := eventStarts(p.chunks)
			if len(starts) == 0 {
				return p
			}
			i := f.N
			if f.At == "" {
				i = rng.IntN(len(starts))
			}
			if i >= len(starts) {
				from = len(p.chunks) // after the last event: nothing waits
				break
			}
			p, from = p.cutAt(starts[i])
		}
		for i := from; i < len(p.extra); i++ {
			p.extra[i] += f.D
		}
	case FaultJitter:
		var shift time.Duration
		prevT := int64(0)
		if len(p.chunks) > 0 {
			prevT = p.chunks[0].T
		}
		for i := range p.chunks {
			gap := time.Duration(p.chunks[i].T - prevT)
			prevT = p.chunks[i].T
			d := time.Duration(rng.Int64N(int64(2*f.D)+1)) - f.D
			d = max(d, -(gap + shift)) // a gap never goes below zero
			shift += d
			p.extra[i] += shift
		}
	}
	return p
}

// cutAt splits the chunk holding byte off of the body so that a chunk
// starts there, and returns the plan and that chunk's index (len(chunks)
// when off is past the end).
func (p plan) cutAt(off int64) (plan, int) {
	for i, c := range p.chunks {
		if off < c.Off || off >= c.Off+int64(len(c.Data)) {
			continue
		}
		if off == c.Off {
			return p, i
		}
		k := off - c.Off
		a, b := c, c
		a.Data, b.Data, b.Off = c.Data[:k], c.Data[k:], off
		p.chunks = slices.Insert(slices.Clone(p.chunks), i+1, b)
		p.chunks[i] = a
		p.extra = slices.Insert(slices.Clone(p.extra), i+1, p.extra[i])
		return p, i + 1
	}
	return p, len(p.chunks)
}

// eventStarts returns the body offset of each event's first byte.
func eventStarts(chunks []tape.Chunk) []int64 {
	var out []int64
	for _, c := range eventChunks(chunks) {
		out = append(out, c.Off)
	}
	return out
}

// reshape applies one fault that re-cuts or rewrites the chunks.
func reshape(chunks []tape.Chunk, f Fault, rng *rand.Rand) []tape.Chunk {
	switch f.Kind {
	case FaultSplitEvent:
		return splitChunks(chunks, func(b []byte) int {
			if len(b) < 2 {
				return 0
			}
			return 1 + rng.IntN(len(b)-1)
		})
	case FaultSplitRune:
		return splitChunks(chunks, runeSplit)
	case FaultCoalesce:
		var out []tape.Chunk
		for i := 0; i < len(chunks); i += f.N {
			c := chunks[min(i+f.N, len(chunks))-1]
			var data []byte
			for _, p := range chunks[i:min(i+f.N, len(chunks))] {
				data = append(data, p.Data...)
			}
			c.Data, c.Off = data, chunks[i].Off
			out = append(out, c)
		}
		return out
	case FaultDropDelta, FaultDupDelta, FaultReorder:
		ev := eventChunks(chunks)
		if len(ev) == 0 {
			return chunks
		}
		i := f.N
		if i < 0 || i >= len(ev) {
			i = rng.IntN(len(ev))
		}
		switch f.Kind {
		case FaultDropDelta:
			ev = append(ev[:i:i], ev[i+1:]...)
		case FaultDupDelta:
			ev = append(ev[:i+1:i+1], ev[i:]...)
		case FaultReorder:
			if i+1 < len(ev) {
				ev[i].Data, ev[i+1].Data = ev[i+1].Data, ev[i].Data
			}
		}
		return reoffset(ev)
	case FaultDropTerminal:
		ev := eventChunks(chunks)
		for i := len(ev) - 1; i >= 0; i-- {
			if isTerminalEvent(ev[i].Data) {
				ev = append(ev[:i:i], ev[i+1:]...)
				break
			}
		}
		return reoffset(ev)
	case FaultTruncate:
		var out []tape.Chunk
		left := f.N
		for _, c := range chunks {
			if left <= 0 {
				break
			}
			if len(c.Data) > left {
				c.Data = c.Data[:left]
			}
			left -= len(c.Data)
			out = append(out, c)
		}
		return out
	}
	return chunks
}

// reoffset sets each chunk's offset to where it now starts in the body.
func reoffset(chunks []tape.Chunk) []tape.Chunk {
	off := int64(0)
	if len(chunks) > 0 {
		off = chunks[0].Off
	}
	for i := range chunks {
		chunks[i].Off = off
		off += int64(len(chunks[i].Data))
	}
	return chunks
}

// splitChunks splits each chunk in two where at says (0 means leave it).
func splitChunks(chunks []tape.Chunk, at func([]byte) int) []tape.Chunk {
	var out []tape.Chunk
	for _, c := range chunks {
		i := at(c.Data)
		if i <= 0 || i >= len(c.Data) {
			out = append(out, c)
			continue
		}
		a, b := c, c
		a.Data, b.Data, b.Off = c.Data[:i], c.Data[i:], c.Off+int64(i)
		out = append(out, a, b)
	}
	return out
}

// runeSplit returns an offset inside the first multi-byte rune of b, or 0.
func runeSplit(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if n > 1 && r != utf8.RuneError {
			return i + 1
		}
		i += n
	}
	return 0
}

// eventChunks re-cuts chunks at event boundaries: one chunk per event, at
// the offset of its first byte and the time of the chunk that completed it.
func eventChunks(chunks []tape.Chunk) []tape.Chunk {
	if len(chunks) == 0 {
		return nil
	}
	body := (&tape.SideData{Chunks: chunks}).Body()
	var out []tape.Chunk
	k, end, at := 0, 0, 0
	for _, part := range sse.SplitEvents(body) {
		start := chunks[0].Off + int64(at)
		at += len(part)
		for k < len(chunks)-1 && end+len(chunks[k].Data) < at {
			end += len(chunks[k].Data)
			k++
		}
		c := chunks[k]
		c.Off, c.Data = start, part
		out = append(out, c)
	}
	return out
}

func isTerminalEvent(b []byte) bool {
	for _, t := range [][]byte{[]byte("[DONE]"), []byte("message_stop"), []byte("response.completed"), []byte("response.failed"), []byte("response.incomplete")} {
		if bytes.Contains(b, t) {
			return true
		}
	}
	return false
}

// statusFault finds a FaultStatus among faults.
func statusFault(faults []Fault) (Fault, bool) {
	for _, f := range faults {
		if f.Kind == FaultStatus {
			return f, true
		}
	}
	return Fault{}, false
}

// writeStatusFault answers with the fault's status and a JSON error in the
// shape OpenAI and Anthropic use.
func writeStatusFault(w http.ResponseWriter, f Fault) {
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(f.N)
	w.Write(statusFaultBody(f))
}

// statusFaultBody is the JSON error a status fault answers with.
func statusFaultBody(f Fault) []byte {
	return fmt.Appendf(nil, `{"error":{"message":"seam serve: injected fault %s","type":"seam_fault","code":%d}}`+"\n", f, f.N)
}
