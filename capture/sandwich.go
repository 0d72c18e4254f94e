package capture

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
// before the request goes upstream. Proxies that drop unknown headers are
// matched in arrival order instead.
const ExchangeHeader = "Seam-Exchange"

// Numbering hands out exchange numbers. The two legs of a sandwich share
// one, so the back leg's recording joins the front leg's exchange. It is
// safe for concurrent use.
type Numbering struct {
	mu      sync.Mutex
	last    int
	pending []int // front exchanges whose back leg has not arrived, oldest first
	// legs holds, per front exchange not yet reported, what its back leg
	// saw of the upstream, for the front's summary line.
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

// back finds the exchange a request arriving at the back leg belongs to:
// the one its ExchangeHeader names, else the oldest still waiting, else a
// new one (the proxy made a request of its own).
func (n *Numbering) back(tag string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if ex, err := strconv.Atoi(tag); err == nil {
		if i := slices.Index(n.pending, ex); i >= 0 {
			n.pending = slices.Delete(n.pending, i, i+1)
			n.startBack(ex)
			return ex
		}
	}
	if len(n.pending) > 0 {
		ex := n.pending[0]
		n.pending = n.pending[1:]
		n.startBack(ex)
		return ex
	}
	n.last++
	return n.last
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
// false when the proxy under test never went upstream for it (or took
// longer than backWait to finish reading).
func (n *Numbering) awaitBack(ex int) (backLeg, bool) {
	n.mu.Lock()
	p := n.legs[ex]
	started := p != nil && p.started
	if !started {
		delete(n.legs, ex)
	}
	n.mu.Unlock()
	if !started {
		return backLeg{}, false
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
		return backLeg{}, false
	}
	return backLeg{first: p.first, bytes: p.bytes, events: p.events}, true
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

// number assigns req its exchange number for this recorder's leg.
func (r *Recorder) number(req *http.Request) int {
	switch r.opts.Leg {
	case Front:
		return r.numbering.front()
	case Back:
		return r.numbering.back(req.Header.Get(ExchangeHeader))
	}
	return r.numbering.next()
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
