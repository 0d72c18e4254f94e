package bench

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// Stream describes the stream a request asks the [Upstream] for.
type Stream struct {
	// Events is the number of content events before the finish event and
	// [DONE].
	Events int
	// Interval, when positive, is the pause before each content event but
	// the first.
	Interval time.Duration
	// Gate, when set, makes the upstream send each content event but the
	// first only after [Gate.Next]; the [Client] calls it on every event it
	// receives.
	Gate *Gate
}

// query encodes s as the query of a request to the upstream.
func (s Stream) query() string {
	q := url.Values{"events": {strconv.Itoa(s.Events)}}
	if s.Interval > 0 {
		q.Set("interval", s.Interval.String())
	}
	if s.Gate != nil {
		q.Set("gate", s.Gate.id)
	}
	return q.Encode()
}

// Upstream is a synthetic Chat Completions server on 127.0.0.1: any POST
// gets an event stream as its query asks (see [Stream]), each event stamped
// with its send time on the upstream's [Clock] and flushed on its own.
type Upstream struct {
	clock Clock
	srv   *server

	mu       sync.Mutex
	gates    map[string]chan struct{}
	nextGate int
}

// NewUpstream starts an Upstream stamping events with clock.
func NewUpstream(clock Clock) (*Upstream, error) {
	u := &Upstream{clock: clock, gates: make(map[string]chan struct{})}
	srv, err := serve(http.HandlerFunc(u.serveHTTP))
	if err != nil {
		return nil, err
	}
	u.srv = srv
	return u, nil
}

// NewTLSUpstream starts an Upstream over TLS (HTTP/2 when the client offers
// it) with the certificate cert, stamping events with clock.
func NewTLSUpstream(clock Clock, cert tls.Certificate) (*Upstream, error) {
	u := &Upstream{clock: clock, gates: make(map[string]chan struct{})}
	srv, err := serveTLS(http.HandlerFunc(u.serveHTTP), &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"}})
	if err != nil {
		return nil, err
	}
	u.srv = srv
	return u, nil
}

// URL returns the upstream's base URL, http://127.0.0.1:port.
func (u *Upstream) URL() string { return u.srv.url }

// Close stops the upstream after its streams have ended.
func (u *Upstream) Close() error { return u.srv.close() }

// Gate paces one lockstep stream: see [Stream.Gate].
type Gate struct {
	u  *Upstream
	id string
	ch chan struct{}
}

// NewGate registers a gate for one stream at a time. Close it when done.
func (u *Upstream) NewGate() *Gate {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.nextGate++
	g := &Gate{u: u, id: strconv.Itoa(u.nextGate), ch: make(chan struct{}, 1)}
	u.gates[g.id] = g.ch
	return g
}

// Next lets the upstream send the next event. Calls beyond one pending event
// are merged.
func (g *Gate) Next() {
	select {
	case g.ch <- struct{}{}:
	default:
	}
}

// Close unregisters the gate.
func (g *Gate) Close() {
	g.u.mu.Lock()
	delete(g.u.gates, g.id)
	g.u.mu.Unlock()
}

func (u *Upstream) gate(id string) chan struct{} {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.gates[id]
}

func (u *Upstream) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		return
	}
	q := r.URL.Query()
	n, err := strconv.Atoi(q.Get("events"))
	if err != nil || n < 0 {
		http.Error(w, "events must be a count", http.StatusBadRequest)
		return
	}
	var interval time.Duration
	if s := q.Get("interval"); s != "" {
		if interval, err = time.ParseDuration(s); err != nil {
			http.Error(w, "bad interval", http.StatusBadRequest)
			return
		}
	}
	var gate chan struct{}
	if id := q.Get("gate"); id != "" {
		if gate = u.gate(id); gate == nil {
			http.Error(w, "unknown gate", http.StatusBadRequest)
			return
		}
	}

	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Request-Id", "req_seambench")
	h.Set("Openai-Processing-Ms", "182")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)

	var timer *time.Timer
	if interval > 0 {
		timer = time.NewTimer(interval)
		defer timer.Stop()
	}
	ctx := r.Context()
	buf := make([]byte, 0, 512)
	for i := range n {
		if i > 0 {
			if timer != nil {
				select {
				case <-timer.C:
					timer.Reset(interval)
				case <-ctx.Done():
					return
				}
			}
			if gate != nil {
				select {
				case <-gate:
				case <-ctx.Done():
					return
				}
			}
		}
		buf = appendEvent(buf[:0], i, u.clock.Now())
		if _, err := w.Write(buf); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
	if _, err := io.WriteString(w, finalEvents); err != nil {
		return
	}
	rc.Flush()
}
