package record

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/seam-dev/seam/tape"
)

// A panic while recording one exchange (a tap choking on hostile bytes, a
// bug in seam) must neither end the process nor cost the other exchanges
// their end lines. Net/http recovers a panic in a handler, but not in the
// goroutines that handlers start: the transport's, which reads the request
// body through the tap; httputil's two WebSocket copiers; a decoder's; the
// sandwich's summary. So every tap that runs on such a goroutine recovers a
// panic itself, and so does the handler, to record the exchange's end: the
// exchange is marked broken, a note on it carries the panic and where it
// came from, both its end lines say [tape.RecorderError] with the panic,
// and the exchange is broken off (the client's response is aborted, a
// WebSocket closed). Recording goes on for every other exchange.

// errBroken is what a tap returns once its exchange broke.
var errBroken = errors.New("seam: recording this exchange failed")

// maxPanicStack bounds the stack trace a broken exchange's note keeps.
const maxPanicStack = 4 << 10

// breakage is the broken state of an exchange.
type breakage struct {
	broken atomic.Bool
	mu     sync.Mutex
	err    string // the first panic, as the end lines give it
}

// isBroken reports whether the recording of x failed.
func (x *exchange) isBroken() bool { return x.brk.broken.Load() }

// brokenErr is the error the end lines of a broken exchange carry.
func (x *exchange) brokenErr() string {
	x.brk.mu.Lock()
	defer x.brk.mu.Unlock()
	return x.brk.err
}

// breakOn marks x broken by v, a panic recovered in where: the first one
// is kept and noted, with its stack, on the exchange.
func (x *exchange) breakOn(where string, v any) {
	stack := debug.Stack()
	if len(stack) > maxPanicStack {
		stack = stack[:maxPanicStack]
	}
	msg := fmt.Sprintf("seam: panic in the %s tap: %v", where, v)
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	x.brk.mu.Lock()
	first := x.brk.err == ""
	if first {
		x.brk.err = msg
	}
	x.brk.mu.Unlock()
	x.brk.broken.Store(true)
	if first {
		x.tw.Note(x.rec.now(), msg+" (a bug in seam: please report it with this note). This exchange was broken off and its recording stops here; other exchanges are not affected.\n"+string(stack))
	}
}

// catch recovers a panic in a tap of x (it must be deferred directly),
// marks the exchange broken and makes the tap return errBroken through
// err (nil for a tap that returns no error).
func (x *exchange) catch(where string, err *error) {
	if v := recover(); v != nil {
		x.breakOn(where, v)
		if err != nil {
			*err = errBroken
		}
	}
}

// safely runs f and reports whether it returned: a panic in it marks the
// exchange broken instead.
func (x *exchange) safely(where string, f func()) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			x.breakOn(where, v)
			ok = false
		}
	}()
	f()
	return true
}

// brokenOutcome returns outcome and err, or [tape.RecorderError] and the
// panic once the exchange broke.
func (x *exchange) brokenOutcome(outcome tape.Outcome, err string) (tape.Outcome, string) {
	if x.isBroken() {
		return tape.RecorderError, x.brokenErr()
	}
	return outcome, err
}

// testTap is called at each tap with the bytes passing, when a test set it
// (see export_test.go): a panicking one stands for a tap that chokes on
// hostile input.
func (x *exchange) testTap(where string, p []byte) {
	if f := x.rec.testTap; f != nil {
		f(where, p)
	}
}
