package replay

import (
	"fmt"
	"strconv"
	"strings"
	"time"
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
