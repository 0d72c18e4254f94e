package replay

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
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
	// D is the delay of FaultDisconnect.
	D time.Duration
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
)

// FaultKinds lists every fault with the form it is written in.
func FaultKinds() []string {
	return []string{
		"split-event", "split-rune", "coalesce[=N]", "drop-delta[=N]", "dup-delta[=N]", "reorder[=N]",
		"drop-terminal", "truncate=BYTES", "disconnect=DURATION", "status=CODE[:RETRY-AFTER]",
	}
}

// ParseFault parses a fault as written on the command line, e.g.
// "split-rune", "drop-delta=3", "truncate=2048", "disconnect=1.5s",
// "status=429:2".
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
	case FaultDisconnect:
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

// applyFaults rewrites the chunks to send. Event-level faults re-cut the
// body at event boundaries first, keeping each event's recorded time.
func applyFaults(chunks []tape.Chunk, faults []Fault, rng *rand.Rand) []tape.Chunk {
	for _, f := range faults {
		switch f.Kind {
		case FaultSplitEvent:
			chunks = splitChunks(chunks, func(b []byte) int {
				if len(b) < 2 {
					return 0
				}
				return 1 + rng.IntN(len(b)-1)
			})
		case FaultSplitRune:
			chunks = splitChunks(chunks, runeSplit)
		case FaultCoalesce:
			var out []tape.Chunk
			for i := 0; i < len(chunks); i += f.N {
				c := chunks[min(i+f.N, len(chunks))-1]
				var data []byte
				for _, p := range chunks[i:min(i+f.N, len(chunks))] {
					data = append(data, p.Data...)
				}
				c.Data = data
				out = append(out, c)
			}
			chunks = out
		case FaultDropDelta, FaultDupDelta, FaultReorder:
			ev := eventChunks(chunks)
			if len(ev) == 0 {
				continue
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
			chunks = ev
		case FaultDropTerminal:
			ev := eventChunks(chunks)
			for i := len(ev) - 1; i >= 0; i-- {
				if isTerminalEvent(ev[i].Data) {
					ev = append(ev[:i:i], ev[i+1:]...)
					break
				}
			}
			chunks = ev
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
			chunks = out
		}
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
		a.Data, b.Data = c.Data[:i], c.Data[i:]
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
// the time of the chunk that completed it.
func eventChunks(chunks []tape.Chunk) []tape.Chunk {
	var body []byte
	for _, c := range chunks {
		body = append(body, c.Data...)
	}
	var out []tape.Chunk
	k, end, at := 0, 0, 0
	for _, part := range sse.SplitEvents(body) {
		at += len(part)
		for k < len(chunks)-1 && end+len(chunks[k].Data) < at {
			end += len(chunks[k].Data)
			k++
		}
		c := chunks[k]
		c.Data = part
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
	fmt.Fprintf(w, `{"error":{"message":"seam serve: injected fault %s","type":"seam_fault","code":%d}}`+"\n", f, f.N)
}
