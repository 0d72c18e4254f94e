package coding

import (
	"fmt"
	"math"
	"sync/atomic"
)

// The caps on decoded bytes. A content coding lets a few bytes stand for
// very many (420 bytes of br for 512 MiB, 1 KiB of gzip for 1 MiB), and
// the upstream picks the coding, the client need not ask for it; a capture
// carries its bodies as they came. So every decoder of this package stops
// at a cap, keeps what it decoded up to it and reports a [*CapError].
//
// A reader (inspect, report, stats, grep, diff, export, serve) holds the
// decoded copy of a body to analyse it, and the analysis costs up to about
// ten times the body (a stream of tiny events); several exchanges are in
// flight at once. [MaxBody] and [MaxExchange] keep one hostile exchange
// within a couple of hundred MiB (16 MiB of tiny events cost inspect 281
// MB of RSS, 12 MiB 184 MB) while leaving room for what real providers
// compress: an 8 MiB event (the longest line seam is designed to carry)
// with the stream around it, a non-streamed response with images, a long
// Gemini stream. A decoder that keeps nothing of what it decodes (the
// recorder's watch reads each piece once) costs work, not memory:
// [MaxStreamBody] and [MaxStreamExchange] are far above any real body and
// bound that work (decoding 256 MiB takes about a second).
const (
	// MaxBody is how many decoded bytes of one body a reader reads.
	MaxBody = 12 << 20
	// MaxExchange is how many decoded bytes all the bodies of one exchange
	// (request, upstream side, client side) a reader reads together.
	MaxExchange = 24 << 20
	// MaxStreamBody is how many decoded bytes of one body the recorder's
	// watch reads.
	MaxStreamBody = 256 << 20
	// MaxStreamExchange is how many decoded bytes the recorder's watch
	// reads of all the bodies of one exchange.
	MaxStreamExchange = 512 << 20
	// MaxCodings is how many codings one Content-Encoding may stack. Real
	// servers apply one; each coding costs a decompressor's window.
	MaxCodings = 4
)

// CapError reports that decoding stopped at a cap: the bytes decoded up to
// it are kept, the rest of the body was not decoded. The body itself (its
// wire bytes) is not changed.
type CapError struct {
	// Cap is the cap passed, in decoded bytes.
	Cap int64
	// Per is what it caps: "body" or "exchange".
	Per string
}

func (e *CapError) Error() string {
	return fmt.Sprintf("decoding stopped at seam's cap of %s decoded per %s (a compression bomb, or a body larger than seam reads): the rest was not decoded",
		Size(e.Cap), e.Per)
}

// Size writes a byte count the way the caps are written: in MiB or KiB
// when it is a whole number of them.
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Budget is what the bodies of one exchange may decode: up to a cap per
// body and a cap for them all. Every decoder made through one Budget
// spends from it. A Budget is safe for concurrent use (the two sides of an
// exchange are read on different goroutines); decoders running at once
// may pass the exchange cap by what one read of each decodes (32 KiB).
//
// The nil *Budget is one with the default caps for a single body:
// [MaxBody], and the exchange cap no lower.
type Budget struct {
	body, exchange int64
	used           atomic.Int64
}

// NewBudget returns a Budget with the given caps per body and per
// exchange; zero or less means no cap. [NewExchangeBudget] gives the
// default caps.
func NewBudget(body, exchange int64) *Budget {
	if body <= 0 {
		body = math.MaxInt64
	}
	if exchange <= 0 {
		exchange = math.MaxInt64
	}
	return &Budget{body: body, exchange: exchange}
}

// NewExchangeBudget returns a Budget with a reader's caps, [MaxBody] per
// body and [MaxExchange] per exchange, for the bodies of one exchange.
func NewExchangeBudget() *Budget { return NewBudget(MaxBody, MaxExchange) }

// NewStreamBudget returns a Budget with the recorder's caps,
// [MaxStreamBody] per body and [MaxStreamExchange] per exchange, for
// decoders that keep nothing of what they decode.
func NewStreamBudget() *Budget { return NewBudget(MaxStreamBody, MaxStreamExchange) }

// Unlimited is a Budget with no cap, for a decoder whose output is not
// seam's copy but what it proxies (a client that cannot decode gets the
// body decoded, however long): its readers still use bounded memory.
var Unlimited = NewBudget(0, 0)

// Used returns how many decoded bytes the Budget's decoders produced.
func (b *Budget) Used() int64 {
	if b == nil {
		return 0
	}
	return b.used.Load()
}

// room returns how many more decoded bytes a body that has decoded done
// bytes may produce, and the error that names the cap bounding it.
func (b *Budget) room(done int64) (int64, *CapError) {
	if b == nil {
		return max(MaxBody-done, 0), &CapError{Cap: MaxBody, Per: "body"}
	}
	r, e := b.body-done, &CapError{Cap: b.body, Per: "body"}
	if left := b.exchange - b.used.Load(); left < r {
		r, e = left, &CapError{Cap: b.exchange, Per: "exchange"}
	}
	return max(r, 0), e
}

// spend counts n decoded bytes.
func (b *Budget) spend(n int) {
	if b != nil && n > 0 {
		b.used.Add(int64(n))
	}
}
