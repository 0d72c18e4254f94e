package inspect

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/seam-dev/seam/clients"
	"github.com/seam-dev/seam/coding"
	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/request"
	"github.com/seam-dev/seam/requestdiff"
	"github.com/seam-dev/seam/session"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/timing"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// SchemaVersion is the version of the JSON report schema (see doc.go).
const SchemaVersion = 1

// Options tune Inspect.
type Options struct {
	// Protocol overrides protocol detection when not Unknown.
	Protocol protocol.Protocol
	// Ex selects one exchange by number; 0 inspects all.
	Ex int
	// NoDiffs leaves the diffs out of the report. Detectors that compare
	// the sides (diff.upstream-client, diff.boundary-dedupe) still run.
	NoDiffs bool
	// Stall is the gap between chunks beyond which Metrics count a stall;
	// 0 means DefaultStall.
	Stall time.Duration
	// Sessions links the exchanges into sessions across calls (see
	// Sessions); Inspect makes one of its own when it is nil.
	Sessions *session.Linker
	// Requests reads the exchanges' request bodies, recalling the
	// messages one repeats from another (request.Reader); Inspect and an
	// Inspector make one of their own when it is nil. Share one across
	// the inputs of a run, as Sessions, when their requests continue each
	// other's conversations.
	Requests *request.Reader
	// AssembleOnly parses and assembles each side, computes the metrics
	// and links sessions, and stops there: no client emulation, no diffs,
	// no other detector. For search and statistics that read no finding.
	AssembleOnly bool
	// Live says the capture is still being recorded (record --tui, tui
	// --follow): a side without an end line is open, not interrupted. Its
	// last event is not read while the blank line (or line feed, or
	// frame end) that ends it has not come, and the detectors that judge
	// how a stream ended (endOfStream) do not run on it until it ends.
	Live bool
}

// Report is the result of inspecting a capture.
type Report struct {
	// Schema is SchemaVersion.
	Schema int `json:"schema"`
	// Capture is the capture's name (its file name).
	Capture string `json:"capture"`
	// Exchanges holds one report per inspected exchange, in capture order.
	Exchanges []*ExchangeReport `json:"exchanges"`
	// Warnings are the capture-level problems found while reading it.
	Warnings []string `json:"warnings,omitempty"`
	// Sessions are the sessions the exchanges form, with their totals,
	// when Inspect linked them itself (Options.Sessions nil).
	Sessions []*session.Session `json:"sessions,omitempty"`
}

// ExchangeReport is everything inspect says about one exchange.
type ExchangeReport struct {
	Ex     int    `json:"ex"`
	Method string `json:"method,omitempty"`
	// URL is the request URL (path and query) and Endpoint its path.
	URL      string `json:"url,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
	// Origin is scheme://host when the request names where it went (a
	// forward-proxy recording).
	Origin   string            `json:"origin,omitempty"`
	Model    string            `json:"model,omitempty"`
	Protocol protocol.Protocol `json:"protocol"`
	// Status and Outcome describe the side clients received (client when
	// recorded, else upstream).
	Status  int          `json:"status"`
	Outcome tape.Outcome `json:"outcome,omitempty"`
	// Error is what the provider said when it failed: the message of a
	// non-2xx body, of an in-band error event or of an "error:" field
	// line, as the side clients received carries it (the upstream's when
	// that side carries none: a proxy swallowed it).
	Error  string        `json:"error,omitempty"`
	TTFB   int64         `json:"ttfb_ns"`
	Dur    int64         `json:"duration_ns"`
	Events int           `json:"events"`
	Sides  []*SideReport `json:"sides"`
	// Clients holds what each emulated client ends up with, from the side
	// clients received.
	Clients []clients.Result `json:"clients,omitempty"`
	// Disagreements lists the fields on which the clients differ.
	Disagreements []Disagreement `json:"disagreements,omitempty"`
	// Findings are sorted by severity, most serious first, then by position.
	Findings []Finding `json:"findings"`
	Diffs    []*Diff   `json:"diffs,omitempty"`
	// RequestDiff, in a sandwich recording, compares the client's request
	// with the one the proxy under test sent upstream.
	RequestDiff *requestdiff.Diff `json:"request_diff,omitempty"`
	// Paired, in a sandwich recording, says how the request the proxy
	// under test sent upstream was paired with the client's: "header",
	// "content", "order" or "none" (tape.Request's Paired); empty when the
	// capture does not say.
	Paired string `json:"paired,omitempty"`
	// Notes are the capture's notes on this exchange.
	Notes []string `json:"notes,omitempty"`
	// WebSocket is set for an exchange that switched to WebSocket.
	WebSocket *WebSocketReport `json:"websocket,omitempty"`
	// Metrics are the gap, stall and throughput figures of the side
	// clients received, its usage taken from the upstream side when it
	// reports none.
	Metrics *timing.Metrics `json:"metrics,omitempty"`
	// Session says which session the exchange belongs to and what it
	// extends; nil for a request without a message history.
	Session *session.Ref `json:"session,omitempty"`

	// req is the request as parsed, for Search.
	req *request.Request
}

// Request returns the exchange's request as the report read it (package
// request); nil for an exchange without one, or a report not made by
// inspecting (read back from JSON).
func (r *ExchangeReport) Request() *request.Request { return r.req }

// SideReport is one side of an exchange.
type SideReport struct {
	Side     tape.Side    `json:"side"`
	Status   int          `json:"status"`
	Outcome  tape.Outcome `json:"outcome,omitempty"`
	Error    string       `json:"error,omitempty"`
	Bytes    int64        `json:"bytes"`
	Chunks   int          `json:"chunks"`
	Events   int          `json:"events"`
	Comments int          `json:"comments"`
	TTFB     int64        `json:"ttfb_ns"`
	Dur      int64        `json:"duration_ns"`
	// Stream is false for a non-stream (JSON) body.
	Stream bool `json:"stream"`
	// Framing is how a stream carries its events (sse, ndjson, json-array,
	// eventstream); empty for a non-stream body.
	Framing framing.Kind `json:"framing,omitempty"`
	// Encoding is the body's Content-Encoding, when it has one, and Decoded
	// the size of the decoded body the events and offsets refer to.
	Encoding string            `json:"encoding,omitempty"`
	Decoded  int64             `json:"decoded_bytes,omitempty"`
	Message  *protocol.Message `json:"message"`
	// Metrics are the side's gap, stall and throughput figures.
	Metrics *timing.Metrics `json:"metrics,omitempty"`

	ev  *protocol.Side
	asm *protocol.Assembly
	// mismatch is set when the body is not the framing its Content-Type
	// declares.
	mismatch bool
	// codingErr is how the body's compressed stream ended (nil when it
	// ended cleanly or was not compressed).
	codingErr error
	// wire and decoded are a compressed body's recorded chunks and their
	// decoded copy, for a client side that got the same bytes.
	wire, decoded []tape.Chunk
	// assembled is the protocol a stream was assembled as.
	assembled protocol.Protocol
}

// ChunkList returns the side's chunks as inspect read them: the recorded
// chunks, or for a compressed body their decoded copy (one per recorded
// chunk, same index and time, offsets in the decoded body), which event
// and finding offsets refer to.
func (s *SideReport) ChunkList() []tape.Chunk {
	if s == nil || s.ev == nil {
		return nil
	}
	return s.ev.Chunks
}

// EventList returns the side's events as inspect parsed them; finding and
// hunk pointers index into it.
func (s *SideReport) EventList() []protocol.Event {
	if s == nil || s.ev == nil {
		return nil
	}
	return s.ev.Events
}

// Worst returns the most serious severity among all findings, and false
// when there are none.
func (r *Report) Worst() (Severity, bool) {
	worst, any := Info, false
	for _, x := range r.Exchanges {
		for _, f := range x.Findings {
			if !any || f.Severity > worst {
				worst, any = f.Severity, true
			}
		}
	}
	return worst, any
}

// Inspect assembles, emulates, diffs and checks every exchange of c (or the
// one opts.Ex selects).
func Inspect(c *tape.Capture, opts Options) *Report {
	r, _ := InspectContext(context.Background(), c, opts)
	return r
}

// InspectContext is Inspect stopping with ctx's error, between two
// exchanges, once ctx is done.
func InspectContext(ctx context.Context, c *tape.Capture, opts Options) (*Report, error) {
	r := &Report{Schema: SchemaVersion, Capture: c.Name}
	for _, w := range c.Warnings {
		r.Warnings = append(r.Warnings, w.Error())
	}
	own := opts.Sessions == nil
	if own {
		opts.Sessions = session.NewLinker()
	}
	if opts.Requests == nil {
		opts.Requests = new(request.Reader)
	}
	in := &Inspector{c: c, opts: opts}
	for _, x := range c.Exchanges {
		if opts.Ex != 0 && x.Ex != opts.Ex {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r.Exchanges = append(r.Exchanges, in.Exchange(x))
	}
	if own {
		r.Sessions = opts.Sessions.List()
	}
	return r, nil
}

// exCtx is the working state of one exchange while detectors run.
type exCtx struct {
	x   *tape.Exchange
	rep *ExchangeReport
	req *request.Request
	// history is session.History(req), read while the exchange is
	// prepared when sessions are linked.
	history []session.Message
	sides   map[tape.Side]*SideReport
	// view is the side clients received.
	view *SideReport
	prev *exCtx
	opts Options
	// name is the capture's name, for findings that cite a line of it.
	name string
	sev  map[string]Severity
	// upDiff is the upstream-vs-client diff, computed whatever
	// Options.NoDiffs says, or nil when the exchange lacks a side.
	upDiff *Diff
	// upEdits are the edits between the upstream and client texts
	// before upDiff's semantic cleanup (compareSides).
	upEdits []diffmatchpatch.Diff
	// calls holds the tool calls of each side's choices and xmlCalls the
	// <use_tool> blocks of their texts, each read once.
	calls    map[callsKey][]sideCall
	xmlCalls map[callsKey][]clients.XMLToolCall
	// started is the capture's start time (zero when unknown), for
	// sessions.
	started time.Time
	// engine is the shaping engine the capture says made the client
	// side, whose declared transforms account for some text changes.
	engine tape.Engine
	// open holds the sides still being recorded (Options.Live), and
	// unanswered is set for a live exchange with no response yet.
	open       map[tape.Side]bool
	unanswered bool
}

// inspectExchange inspects x, the exchange after prev (nil for the first).
func inspectExchange(c *tape.Capture, x *tape.Exchange, opts Options, prev *exCtx) *exCtx {
	ctx := prepareExchange(c, x, opts)
	ctx.settle(prev)
	return ctx
}

// prepareExchange does the work of inspecting x that reads x alone: the
// sides parsed and assembled, the clients emulated, the diffs and the
// detectors but the ordered ones. It may run on any goroutine, for several
// exchanges at once; settle then finishes it in capture order.
func prepareExchange(c *tape.Capture, x *tape.Exchange, opts Options) *exCtx {
	ctx, reqT := newExCtx(c, x, opts)
	rep := ctx.rep
	if opts.Live {
		ctx.liveSides()
	}
	if isWebSocket(x) {
		inspectWebSocket(ctx, reqT)
		return ctx
	}
	if opts.Sessions != nil && ctx.req != nil {
		// The history's fingerprints are the request's alone: taken here,
		// on the workers, rather than in linking's ordered step.
		ctx.history = session.History(ctx.req)
	}
	ctx.readSides(c.Header.Imported, reqT)
	ctx.chooseView()
	fieldErrors(ctx)
	rep.Error = providerSaid(ctx)
	if opts.AssembleOnly {
		return ctx
	}
	ctx.upDiff = upstreamClientDiff(ctx)
	if !opts.NoDiffs {
		rep.Diffs = exchangeDiffs(ctx)
	}
	runDetectors(ctx)
	return ctx
}

// newExCtx starts the report of exchange x of capture c from its request
// (method, URL, model, the request read once, the diff of a sandwich's two
// request legs) and notes, and returns the request's time.
func newExCtx(c *tape.Capture, x *tape.Exchange, opts Options) (*exCtx, int64) {
	rep := &ExchangeReport{Ex: x.Ex, Findings: []Finding{}}
	ctx := &exCtx{x: x, rep: rep, sides: map[tape.Side]*SideReport{}, opts: opts,
		name: c.Name, started: c.Header.Started, engine: c.Header.Engine, sev: severityOf()}
	var reqT int64
	if x.Request != nil {
		rep.Method, rep.URL = x.Request.Method, x.Request.URL
		rep.Endpoint, _, _ = strings.Cut(x.Request.URL, "?")
		if x.Request.Host != "" {
			rep.Origin = tape.BaseURL(&c.Header, x.Request)
		}
		reqT = x.Request.T
		ctx.req = opts.Requests.Parse(x.Request.Body)
		rep.Model, rep.req = cmp.Or(ctx.req.Model, protocol.ModelFromURL(x.Request.URL)), ctx.req
	}
	rep.RequestDiff = requestdiff.Compare(x.Request, x.UpstreamRequest, ctx.req)
	if x.UpstreamRequest != nil {
		rep.Paired = x.UpstreamRequest.Paired
	}
	for _, n := range x.Notes {
		rep.Notes = append(rep.Notes, n.Text)
	}
	return ctx, reqT
}

// readSides reads the exchange's recorded sides, upstream first, their
// decoded copies within one exchange's caps. Times the capture contradicts,
// or an import (im) does not have, are left out.
func (ctx *exCtx) readSides(im *tape.Imported, reqT int64) {
	x := ctx.x
	budget := coding.NewExchangeBudget()
	for _, s := range []tape.Side{tape.Upstream, tape.Client} {
		sd := x.Side(s)
		if sd.Response == nil && len(sd.Chunks) == 0 && sd.End == nil {
			continue
		}
		sr := inspectSide(s, trueOffsets(x, s, sd), ctx.rep.URL, ctx.opts, reqT, ctx.sides[tape.Upstream], ctx.open[s], budget)
		if timesLie(x, s) {
			sr.TTFB, sr.Dur = -1, -1
			sr.Metrics.Untime()
		}
		if im != nil {
			// An import has no chunk times: no time to first byte, no
			// gaps, and no duration when the source has no times at all.
			sr.TTFB = -1
			sr.Metrics.Untime()
			if im.Timing != tape.TimingPartial {
				sr.Dur = -1
			}
		}
		ctx.sides[s] = sr
		ctx.rep.Sides = append(ctx.rep.Sides, sr)
	}
}

// chooseView picks the side clients received (the upstream's when the
// client side holds nothing) and gives the exchange its protocol, status,
// times, metrics and, unless only assembling, the clients' emulations.
func (ctx *exCtx) chooseView() {
	rep := ctx.rep
	ctx.view = ctx.sides[tape.Client]
	if ctx.view == nil || (ctx.view.Chunks == 0 && ctx.sides[tape.Upstream] != nil) {
		ctx.view = ctx.sides[tape.Upstream]
	}
	v := ctx.view
	if v == nil {
		return
	}
	rep.Protocol = v.Message.Protocol
	rep.Status, rep.Outcome, rep.TTFB, rep.Dur, rep.Events = v.Status, v.Outcome, v.TTFB, v.Dur, v.Events
	if rep.Model == "" {
		rep.Model = v.Message.Model
	}
	if !ctx.opts.AssembleOnly {
		rep.Clients = emulateClients(v)
		rep.Disagreements = disagreements(rep.Clients, rep.Protocol, ctx.req.NativeTools())
	}
	rep.Metrics = v.Metrics
	if up := ctx.sides[tape.Upstream]; v.Message.Usage == nil && up != nil && up.Message.Usage != nil {
		m := *v.Metrics
		m.SetUsage(up.Message.Usage, ctx.x.Side(v.Side).Chunks)
		rep.Metrics = &m
	}
}

// settle finishes an exchange prepareExchange began, once prev, the
// exchange before it, is settled: it links the exchange into its session,
// runs the ordered detectors and sorts the findings. Exchanges are settled
// one at a time, in capture order.
func (c *exCtx) settle(prev *exCtx) {
	c.prev = prev
	switch {
	case c.rep.WebSocket != nil:
		return // inspectWebSocket reported what applies
	case c.opts.AssembleOnly:
		runSession(c)
		return
	}
	runOrdered(c)
	slices.SortStableFunc(c.rep.Findings, func(a, b Finding) int {
		if a.Severity != b.Severity {
			return cmp.Compare(b.Severity, a.Severity)
		}
		if a.Pointer.Side != b.Pointer.Side {
			return cmp.Compare(a.Pointer.Side, b.Pointer.Side)
		}
		return cmp.Compare(a.Pointer.Event, b.Pointer.Event)
	})
}
