package replay

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seam-dev/seam/sse"
	"github.com/seam-dev/seam/tape"
)

// Fault is a deliberate departure from the recording that a mock upstream
// makes, to see how a client or proxy copes. Faults are applied in order;
// those that pick positions draw from the server's seeded source, so a
// seed reproduces a run exactly.
type Fault struct {
	Kind FaultKind
	// N is the count or index the kind takes (see each kind).
	N int
	// D is the delay of FaultDisconnect, FaultLatency, FaultStall and
	// FaultJitter.
	D time.Duration
	// At says what N counts for FaultStall: "event", "chunk" or "byte";
	// "" picks an event at random.
	At string
	// RetryAfter is the Retry-After value sent with FaultStatus.
	RetryAfter string
}

// FaultKind names a fault.
type FaultKind string

// The faults a mock upstream can inject.
const (
	// FaultSplitEvent splits every chunk into two reads at a point inside it.
	FaultSplitEvent FaultKind = "split-event"
	// FaultSplitRune splits chunks inside a multi-byte UTF-8 rune.
	FaultSplitRune FaultKind = "split-rune"
	// FaultCoalesce joins every N chunks (default 2) into one write.
	FaultCoalesce FaultKind = "coalesce"
	// FaultDropDelta drops event N (from 0; -1 or absent: one at random).
	FaultDropDelta FaultKind = "drop-delta"
	// FaultDupDelta sends event N twice.
	FaultDupDelta FaultKind = "dup-delta"
	// FaultReorder swaps event N with the next one.
	FaultReorder FaultKind = "reorder"
	// FaultDropTerminal leaves out the terminal event ([DONE], message_stop,
	// response.completed).
	FaultDropTerminal FaultKind = "drop-terminal"
	// FaultTruncate ends the body cleanly after N bytes.
	FaultTruncate FaultKind = "truncate"
	// FaultDisconnect drops the connection D after the response began.
	FaultDisconnect FaultKind = "disconnect"
	// FaultStatus answers with HTTP status N (429, 500, ...) and a JSON
	// error instead of the recording.
	FaultStatus FaultKind = "status"
	// FaultLatency waits D more before the first byte (the response line
	// and everything after it come D later).
	FaultLatency FaultKind = "latency"
	// FaultStall waits D before event N (At "event"; the chunk holding
	// its first byte is split there), chunk N or byte N; everything after
	// comes D later.
	FaultStall FaultKind = "stall"
	// FaultJitter changes every gap between chunks (and the wait for the
	// first) by a random amount within ±D, never below zero.
	FaultJitter FaultKind = "jitter"
)

// Timing faults wait in wall-clock time whatever the playback speed: with
// speed 0, latency=300ms still waits 300 ms before the first byte. They
// apply after the faults that re-cut or rewrite the chunks, to the chunks
// those leave.

// FaultKinds lists every fault with the form it is written in.
func FaultKinds() []string {
	return []string{
		"split-event", "split-rune", "coalesce[=N]", "drop-delta[=N]", "dup-delta[=N]", "reorder[=N]",
		"drop-terminal", "truncate=BYTES", "disconnect=DURATION", "status=CODE[:RETRY-AFTER]",
		"latency=DURATION", "stall=DURATION[@event:N|@chunk:N|@byte:N]", "jitter=DURATION",
	}
}

// ParseFault parses a fault as written on the command line, e.g.
// "split-rune", "drop-delta=3", "truncate=2048", "disconnect=1.5s",
// "status=429:2", "latency=300ms", "stall=2s@event:40", "jitter=±20ms".
func ParseFault(spec string) (Fault, error) {
	name, arg, hasArg := strings.Cut(strings.TrimSpace(spec), "=")
	f := Fault{Kind: FaultKind(name), N: -1}
	bad := func(want string) (Fault, error) {
		return Fault{}, fmt.Errorf("fault %q: want %s", spec, want)
	}
	atoi := func() (int, bool) {
		n, err := strconv.Atoi(arg)
		return n, err == nil && n >= 0
	}
	switch f.Kind {
	case FaultSplitEvent, FaultSplitRune, FaultDropTerminal:
		if hasArg {
			return bad(name + " without a value")
		}
	case FaultCoalesce, FaultDropDelta, FaultDupDelta, FaultReorder:
		if hasArg {
			n, ok := atoi()
			if !ok {
				return bad(name + "=N with N a whole number")
			}
			f.N = n
		}
		if f.Kind == FaultCoalesce && f.N < 2 {
			f.N = 2
		}
	case FaultTruncate:
		n, ok := atoi()
		if !hasArg || !ok {
			return bad("truncate=BYTES")
		}
		f.N = n
	case FaultDisconnect:
		d, err := time.ParseDuration(arg)
		if !hasArg || err != nil || d < 0 {
			return bad("disconnect=DURATION such as 500ms")
		}
		f.D = d
	case FaultStatus:
		code, retry, _ := strings.Cut(arg, ":")
		n, err := strconv.Atoi(code)
		if !hasArg || err != nil || n < 400 || n > 599 {
			return bad("status=CODE[:RETRY-AFTER] with CODE from 400 to 599")
		}
		f.N, f.RetryAfter = n, retry
	case FaultLatency, FaultJitter:
		arg = strings.TrimPrefix(strings.TrimPrefix(arg, "±"), "+-")
		d, err := time.ParseDuration(arg)
		if !hasArg || err != nil || d < 0 {
			return bad(name + "=DURATION such as 300ms")
		}
		f.D = d
	case FaultStall:
		dur, at, hasAt := strings.Cut(arg, "@")
		d, err := time.ParseDuration(dur)
		if !hasArg || err != nil || d < 0 {
			return bad("stall=DURATION[@event:N|@chunk:N|@byte:N] such as stall=2s@event:40")
		}
		f.D = d
		if hasAt {
			what, n, _ := strings.Cut(at, ":")
			k, err := strconv.Atoi(n)
			if (what != "event" && what != "chunk" && what != "byte") || err != nil || k < 0 {
				return bad("stall=DURATION@event:N, @chunk:N or @byte:N with N a whole number")
			}
			f.At, f.N = what, k
		}
	default:
		return Fault{}, fmt.Errorf("unknown fault %q (faults: %s)", name, strings.Join(FaultKinds(), ", "))
	}
	return f, nil
}

// String writes f back in the form ParseFault reads.
func (f Fault) String() string {
	switch f.Kind {
	case FaultTruncate:
		return fmt.Sprintf("%s=%d", f.Kind, f.N)
	case FaultDisconnect, FaultLatency, FaultJitter:
		return fmt.Sprintf("%s=%s", f.Kind, f.D)
	case FaultStall:
		if f.At != "" {
			return fmt.Sprintf("%s=%s@%s:%d", f.Kind, f.D, f.At, f.N)
		}
		return fmt.Sprintf("%s=%s", f.Kind, f.D)
	case FaultStatus:
		if f.RetryAfter != "" {
			return fmt.Sprintf("%s=%d:%s", f.Kind, f.N, f.RetryAfter)
		}
		return fmt.Sprintf("%s=%d", f.Kind, f.N)
	case FaultCoalesce, FaultDropDelta, FaultDupDelta, FaultReorder:
		if f.N >= 0 {
			return fmt.Sprintf("%s=%d", f.Kind, f.N)
		}
	}
	return string(f.Kind)
}

// Faults is a list of faults applied in order, read from repeated --fault
// flags (a flag.Value).
type Faults []Fault

// String spells the faults as --fault does, comma-separated.
func (fs *Faults) String() string {
	var s []string
	for _, f := range *fs {
		s = append(s, f.String())
	}
	return strings.Join(s, ",")
}

// Set adds the fault spec describes (ParseFault).
func (fs *Faults) Set(spec string) error {
	f, err := ParseFault(spec)
	if err != nil {
		return err
	}
	*fs = append(*fs, f)
	return nil
}

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
