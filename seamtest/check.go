package seamtest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible"
)

// Exchange is what the in-process recorder kept of one request a client
// made to [Server.URL], and what seam found in it.
type Exchange struct {
	// Ex numbers the exchanges in the order they arrived, from 1.
	Ex     int
	Method string
	// URL is the request's path and query.
	URL string
	// Status is the status the client received, 0 when it got none.
	Status int
	// Outcome is how the client's stream ended: "complete",
	// "client_aborted", "truncated", "upstream_error", ... (FORMAT.md).
	Outcome string
	// Findings are seam inspect's findings on the exchange, most serious
	// first.
	Findings []Finding
	// Divergence names the first event where what the client received
	// departs from what the upstream sent, with both sides quoted; "" when
	// the client received the upstream's events unchanged. Without
	// [Proxy] nothing stands between them, so it is always "".
	Divergence string
}

// Finding is one of seam's findings: a detector's id ("diff.tool-call-dropped"),
// its severity ("error", "warn" or "info"), what it says and where.
type Finding struct {
	ID       string
	Severity string
	Message  string
	// At is where it was born, e.g. "ex 1 client event 12 (chunk 12,
	// byte 3021, t=41ms)"; Peer, for a finding that compares the sides,
	// where its counterpart is on the other side.
	At       string
	Peer     string
	Evidence string
}

// String renders the finding as seam inspect does, on one line, with
// every character that acts on a terminal shown as a visible marker.
func (f Finding) String() string {
	s := f.Severity + " " + f.ID + ": " + f.Message + " (at " + f.At
	if f.Peer != "" {
		s += " vs " + f.Peer
	}
	s += ")"
	if f.Evidence != "" {
		s += "; evidence: " + f.Evidence
	}
	return visibleLine(s)
}

// Exchanges returns every exchange recorded so far, once each has been
// recorded to its end, with seam's findings on it. Call it once the
// client under test is done: it waits for the exchanges in flight.
func (s *Server) Exchanges(t testing.TB) []Exchange {
	t.Helper()
	xs, err := s.exchanges()
	if err != nil {
		t.Fatalf("seamtest: %v", err)
	}
	return xs
}

// Check fails the test (t.Error, once per exchange) for every exchange
// with a finding at or above the [FailOn] severity (error by default),
// and for every request that matched no recorded exchange, naming the
// findings and the first divergent event. It returns whether everything
// passed. Call it once the client under test is done.
func (s *Server) Check(t testing.TB) bool {
	t.Helper()
	xs, err := s.exchanges()
	if err != nil {
		t.Fatalf("seamtest: %v", err)
		return false
	}
	ok := true
	for _, x := range xs {
		if msg := x.failure(s.cfg.failOn); msg != "" {
			t.Error(msg)
			ok = false
		}
	}
	if !s.cfg.allowMisses {
		for _, v := range s.misses() {
			t.Errorf("seamtest: %s", visibleLine(v.String()))
			ok = false
		}
	}
	return ok
}

// failure is the text that fails the test for x, "" when x passes at
// least.
func (x Exchange) failure(least inspect.Severity) string {
	var bad []Finding
	for _, f := range x.Findings {
		if sev, _ := inspect.ParseSeverity(f.Severity); sev >= least {
			bad = append(bad, f)
		}
	}
	if len(bad) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "seamtest: exchange %d, %s %s (status %d, %s): %d %s at %s or above",
		x.Ex, x.Method, x.URL, x.Status, x.Outcome, len(bad), units.Noun(len(bad), "finding"), least)
	for _, f := range bad {
		b.WriteString("\n  " + f.String())
	}
	if x.Divergence != "" {
		b.WriteString("\n  first divergent event: " + x.Divergence)
	}
	return visibleText(b.String())
}

// exchanges reads the in-process capture once every exchange in flight
// has been recorded to its end, and inspects each exchange.
func (s *Server) exchanges() ([]Exchange, error) {
	for _, rec := range s.recs {
		rec.Wait()
	}
	c, err := s.settled()
	if err != nil {
		return nil, err
	}
	in := inspect.NewInspector("seamtest", c.Header, inspect.Options{NoDiffs: true})
	out := make([]Exchange, 0, len(c.Exchanges))
	for _, x := range c.Exchanges {
		rep := in.Exchange(x)
		e := Exchange{Ex: x.Ex, Method: rep.Method, URL: rep.URL, Status: rep.Status, Outcome: string(rep.Outcome),
			Divergence: divergence(x)}
		for _, f := range rep.Findings {
			g := Finding{ID: f.ID, Severity: f.Severity.String(), Message: f.Message, At: f.Pointer.String(), Evidence: f.Evidence}
			if f.Peer != nil {
				g.Peer = f.Peer.String()
			}
			e.Findings = append(e.Findings, g)
		}
		out = append(out, e)
	}
	return out, nil
}

// settled reads the in-process capture when the writer has written every
// exchange's lines: the recorders are done with them once Wait returns,
// and the writer's goroutine writes what they queued soon after.
func (s *Server) settled() (*tape.Capture, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := tape.Read(bytes.NewReader(s.sink.bytes()), "seamtest")
		if err != nil {
			return nil, fmt.Errorf("read the in-process capture: %w", err)
		}
		if (s.w.Stats().InFlight == 0 && complete(c)) || time.Now().After(deadline) {
			return c, nil
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// complete reports whether every exchange of c has its request and the
// end of each side it began.
func complete(c *tape.Capture) bool {
	for _, x := range c.Exchanges {
		if x.Request == nil || x.Client.End == nil || (x.Upstream.Response != nil && x.Upstream.End == nil) {
			return false
		}
	}
	return true
}

// divergence names the first event where the client side of x departs
// from its upstream side, "" when it does not.
func divergence(x *tape.Exchange) string {
	up, cl := x.Upstream.Response, x.Client.Response
	if up == nil || cl == nil {
		return ""
	}
	if up.Status != cl.Status {
		return fmt.Sprintf("the client got status %d, the upstream sent %d", cl.Status, up.Status)
	}
	ub, ue := sideEvents(&x.Upstream)
	cb, ce := sideEvents(&x.Client)
	same := func(a, b protocol.Event) bool { return a.Name == b.Name && a.Data == b.Data }
	for i := 0; i < len(ue) && i < len(ce); i++ {
		if same(ue[i], ce[i]) {
			continue
		}
		// Events left out, or put in, show as the next events matching.
		// Quoted from where the two events at i part.
		k := commonPrefix(ue[i].Data, ce[i].Data)
		for n := 1; n <= lookahead; n++ {
			if i+n < len(ue) && same(ue[i+n], ce[i]) {
				return fmt.Sprintf("upstream event %d (byte %d)%s never reached the client, whose event %d (byte %d) is upstream event %d:\n    upstream %s",
					i, ue[i].Off, more(n-1), i, ce[i].Off, i+n, quoteEvent(ue[i], k))
			}
			if i+n < len(ce) && same(ue[i], ce[i+n]) {
				return fmt.Sprintf("client event %d (byte %d)%s the upstream never sent, before client event %d, upstream event %d:\n    client   %s",
					i, ce[i].Off, more(n-1), i+n, i, quoteEvent(ce[i], k))
			}
		}
		return fmt.Sprintf("client event %d (byte %d) differs from upstream event %d (byte %d) at byte %d of its data:\n    upstream %s\n    client   %s",
			i, ce[i].Off, i, ue[i].Off, k, quoteEvent(ue[i], k), quoteEvent(ce[i], k))
	}
	switch {
	case len(ce) < len(ue):
		e := ue[len(ce)]
		return fmt.Sprintf("the client's stream ends after %d events: upstream event %d (byte %d)%s never reached it:\n    upstream %s",
			len(ce), e.Index, e.Off, more(len(ue)-len(ce)-1), quoteEvent(e, 0))
	case len(ce) > len(ue):
		e := ce[len(ue)]
		return fmt.Sprintf("client event %d (byte %d)%s the upstream never sent, after its last:\n    client   %s",
			e.Index, e.Off, more(len(ce)-len(ue)-1), quoteEvent(e, 0))
	}
	if len(ue) == 0 && !bytes.Equal(ub, cb) {
		k := commonPrefix(string(ub), string(cb))
		return fmt.Sprintf("the bodies differ from byte %d:\n    upstream %s\n    client   %s", k, around(ub, k), around(cb, k))
	}
	return ""
}

// sideEvents returns a side's body, decoded when it was sent with a
// Content-Encoding seam decodes, and its events in the framing it has.
func sideEvents(sd *tape.SideData) ([]byte, []protocol.Event) {
	chunks := sd.Chunks
	ct := ""
	if v := sd.Response.Headers["content-type"]; len(v) > 0 {
		ct = v[0]
	}
	if ce := strings.Join(sd.Response.Headers["content-encoding"], ", "); ce != "" {
		if dec, err := tape.DecodeChunks(chunks, ce, nil); dec != nil && err == nil {
			chunks = dec
		}
	}
	body := (&tape.SideData{Chunks: chunks}).Body()
	kind, _ := framing.Choose(ct, body[:min(len(body), 64)])
	if kind == framing.Unknown && !strings.Contains(ct, "event-stream") {
		return body, nil // a document, not a stream
	}
	return body, protocol.Parse(chunks, kind, nil).Events
}

// lookahead is how many events on one side divergence skips to find the
// other side's event again: events left out or put in.
const lookahead = 64

// more says how many events follow the one named, in the same case.
func more(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return " and the next"
	}
	return fmt.Sprintf(" and the %d after it", n)
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// quoteEvent quotes an event's name and its data around byte k, cut to a
// line's length.
func quoteEvent(e protocol.Event, k int) string {
	s := around([]byte(e.Data), k)
	if e.Name != "" {
		s = "event " + visible.String(e.Name) + ": " + s
	}
	return s
}

// around shows b from a little before byte k to a little after it, with
// an ellipsis where it is cut and what acts on a terminal (a line break
// included) as visible markers.
func around(b []byte, k int) string {
	from, to := max(0, k-40), min(len(b), k+120)
	for from > 0 && !utf8.RuneStart(b[from]) {
		from--
	}
	for to < len(b) && !utf8.RuneStart(b[to]) {
		to++
	}
	s := visible.String(string(b[from:to]))
	if from > 0 {
		s = "…" + s
	}
	if to < len(b) {
		s += "…"
	}
	return s
}

// visibleLine shows what acts on a terminal in s as visible markers, line
// breaks included.
func visibleLine(s string) string { return visible.String(s) }

// visibleText is visibleLine for text whose own line breaks are kept.
func visibleText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = visible.String(l)
	}
	return strings.Join(lines, "\n")
}
