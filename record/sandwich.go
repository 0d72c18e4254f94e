package record

import (
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/seam-dev/seam/tape"
)

// Leg says which part of an exchange a [Recorder] records.
type Leg int

const (
	// Whole records the request and both sides: seam is the proxy.
	Whole Leg = iota
	// Front is the client-facing leg of a sandwich: seam stands between the
	// clients and a proxy under test and records the client's request and
	// the client side (what the proxy produced, as the client received it).
	// It tags each request it forwards with the [ExchangeHeader].
	Front
	// Back is the upstream-facing leg of a sandwich: seam stands between the
	// proxy under test and the upstream and records the request as the
	// proxy sent it (a request line with side "upstream") and the upstream
	// side. It files both under the exchange the front leg numbered.
	Back
)

// ExchangeHeader carries the exchange number from the front leg of a
// sandwich, through the proxy under test, to the back leg, which removes it
// before the request goes upstream. A request from a proxy that drops
// unknown headers is paired by its content instead (see pairing.go).
const ExchangeHeader = "Seam-Exchange"

// Numbering hands out exchange numbers. The two legs of a sandwich share
// one, so the back leg's recording joins the front leg's exchange. It is
// safe for concurrent use.
type Numbering struct {
	// Notify, if set, is told once, when the first request reaches the
	// back leg without the ExchangeHeader, that the proxy under test drops
	// it and how its requests are paired instead.
	Notify func(msg string)

	mu       sync.Mutex
	last     int
	pending  []int // front exchanges whose back leg has not arrived, oldest first
	notified bool
	// legs holds, per front exchange not yet reported, what its back leg
	// saw of the upstream, for the front's summary line, and the client's
	// request, for pairing.
	legs map[int]*backLeg
}

// backLeg is what the back leg of a sandwich tells the front about the
// upstream side of one exchange.
type backLeg struct {
	started bool          // the back leg took the exchange
	ended   chan struct{} // closed when its upstream side ended
	first   time.Time     // when the first upstream byte came; zero when none (each leg has its own clock start)
	bytes   int64
	events  int
	// client is the fingerprint of the client's request, once its body
	// went to the proxy under test.
	client *fingerprint
}

// next numbers an exchange of a Whole recorder.
func (n *Numbering) next() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.last++
	return n.last
}

// front numbers an exchange arriving at the front leg and waits for its
// back leg.
func (n *Numbering) front() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.last++
	n.pending = append(n.pending, n.last)
	if n.legs == nil {
		n.legs = map[int]*backLeg{}
	}
	n.legs[n.last] = &backLeg{ended: make(chan struct{})}
	return n.last
}

// describe keeps the fingerprint of front exchange ex's request, for
// pairing.
func (n *Numbering) describe(ex int, fp *fingerprint) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if l := n.legs[ex]; l != nil {
		l.client = fp
	}
}

// byHeader takes the waiting front exchange the ExchangeHeader value tag
// names, if any.
func (n *Numbering) byHeader(tag string) (int, bool) {
	ex, err := strconv.Atoi(tag)
	if err != nil {
		return 0, false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	i := slices.Index(n.pending, ex)
	if i < 0 {
		return 0, false
	}
	n.take(i)
	return ex, true
}

// byContent finds the exchange a request without the ExchangeHeader
// belongs to, from fp, its body's fingerprint: the waiting front exchange
// whose request had the same bytes, else the one whose text fp carries the
// most of (at least minOverlap of it; ties go to the one fp has the least
// besides, then to the oldest), else the oldest waiting (tape.PairedOrder),
// else a new one (the proxy made a request of its own, tape.PairedNone).
func (n *Numbering) byContent(fp *fingerprint) (int, string) {
	n.mu.Lock()
	first := !n.notified
	n.notified = true
	ex, how := n.match(fp)
	n.mu.Unlock()
	if first && n.Notify != nil {
		n.Notify("seam: the proxy under test does not pass the " + ExchangeHeader + " request header on: " +
			"its upstream requests are paired with the clients' by request content (each exchange in the capture says how it was paired)")
	}
	return ex, how
}

// match is byContent with n.mu held.
func (n *Numbering) match(fp *fingerprint) (int, string) {
	best, bestA, bestB := -1, 0.0, 0.0
	for i, ex := range n.pending {
		c := n.legs[ex].client
		if c == nil {
			continue
		}
		if c.same(fp) {
			best, bestA = i, 1
			break
		}
		a, b := c.overlap(fp)
		if a > bestA || a == bestA && b > bestB {
			best, bestA, bestB = i, a, b
		}
	}
	switch {
	case best >= 0 && bestA >= minOverlap:
		return n.take(best), tape.PairedContent
	case len(n.pending) > 0:
		return n.take(0), tape.PairedOrder
	}
	n.last++
	return n.last, tape.PairedNone
}

// take hands waiting front exchange pending[i] to the back leg. n.mu is
// held.
func (n *Numbering) take(i int) int {
	ex := n.pending[i]
	n.pending = slices.Delete(n.pending, i, i+1)
	n.startBack(ex)
	return ex
}

// startBack notes that the back leg took front exchange ex. n.mu is held.
func (n *Numbering) startBack(ex int) {
	if l := n.legs[ex]; l != nil {
		l.started = true
	}
}

// backEnded hands the front leg what the back leg saw of exchange ex's
// upstream side. An exchange the front does not wait for (a request the
// proxy made of its own) is ignored.
func (n *Numbering) backEnded(ex int, first time.Time, bytes int64, events int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	l := n.legs[ex]
	if l == nil || !l.started {
		return
	}
	select {
	case <-l.ended:
		return // ended already
	default:
	}
	l.first, l.bytes, l.events = first, bytes, events
	close(l.ended)
}

// forget drops what the front leg would have waited for on exchange ex.
func (n *Numbering) forget(ex int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.legs, ex)
}

// backWait bounds how long the front leg's summary waits for the back leg
// to finish reading the upstream after the client side ended (a proxy that
// answers before it has read the whole upstream response).
const backWait = 2 * time.Second

// awaitBack returns what the back leg saw of exchange ex's upstream side,
// waiting for it to end when it has begun, and forgets the exchange. ok is
// false when the proxy under test never went upstream for it (began is
// false then) or took longer than backWait to finish reading.
func (n *Numbering) awaitBack(ex int) (l backLeg, ok, began bool) {
	n.mu.Lock()
	p := n.legs[ex]
	started := p != nil && p.started
	if !started {
		delete(n.legs, ex)
	}
	n.mu.Unlock()
	if !started {
		return backLeg{}, false, false
	}
	t := time.NewTimer(backWait)
	defer t.Stop()
	ended := true
	select {
	case <-p.ended:
	case <-t.C:
		ended = false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.legs, ex)
	if !ended {
		return backLeg{}, false, true
	}
	return backLeg{first: p.first, bytes: p.bytes, events: p.events}, true, true
}

// done forgets a front exchange whose back leg never came (the proxy
// answered it without going upstream).
func (n *Numbering) done(ex int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if i := slices.Index(n.pending, ex); i >= 0 {
		n.pending = slices.Delete(n.pending, i, i+1)
	}
}

// number assigns req its exchange number for this recorder's leg and, on
// a sandwich's back leg, says how it was paired with the client's request
// (tape.Request's Paired). Pairing by content reads the start of req's
// body ahead.
func (r *Recorder) number(req *http.Request) (int, string) {
	switch r.opts.Leg {
	case Front:
		return r.numbering.front(), ""
	case Back:
		if ex, ok := r.numbering.byHeader(req.Header.Get(ExchangeHeader)); ok {
			return ex, tape.PairedHeader
		}
		return r.numbering.byContent(newFingerprint(r.readAhead(req)))
	}
	return r.numbering.next(), ""
}

// records reports whether this recorder writes the lines of side s.
func (r *Recorder) records(s tape.Side) bool {
	switch r.opts.Leg {
	case Front:
		return s == tape.Client
	case Back:
		return s == tape.Upstream
	}
	return true
}
