package capture

import (
	"net/http"
	"slices"
	"strconv"
	"sync"

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
			return ex
		}
	}
	if len(n.pending) > 0 {
		ex := n.pending[0]
		n.pending = n.pending[1:]
		return ex
	}
	n.last++
	return n.last
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
