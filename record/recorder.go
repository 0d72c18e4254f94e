package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seam-dev/seam/coding"
	"github.com/seam-dev/seam/shape"
	"github.com/seam-dev/seam/tape"
)

// DefaultMaxRequestBody is how many bytes of each request body a [Recorder]
// keeps when [Options.MaxRequestBody] is zero. The whole body always goes
// upstream; only the recorded copy is cut.
const DefaultMaxRequestBody = 16 << 20

// DefaultMaxHeldRequestBodies is how many bytes of request bodies all the
// exchanges in flight may hold together for the capture when
// [Options.MaxHeldRequestBodies] is zero.
const DefaultMaxHeldRequestBodies = 64 << 20

// freeRequestBody is how much of each request body is kept whatever the
// exchanges in flight hold, so small requests are never cut by load.
const freeRequestBody = 64 << 10

// Options configures a [Recorder].
type Options struct {
	// Upstream is where every request goes; its path is prefixed to the
	// request path. Nil makes a forward-mode recorder (behind a [Forward]
	// proxy): each request's URL is absolute and names where it goes, and
	// the capture records its scheme and host.
	Upstream *url.URL
	// Engine describes the shaping engine run between the two sides. The zero
	// value is the passthrough engine.
	Engine tape.Engine
	// Writer receives the capture lines. Required unless Files is set. The
	// caller writes the capture header and closes the writer.
	Writer *tape.Writer
	// Files, if set, is where each exchange's lines go in place of Writer,
	// for a capture split into files: the writer of exchange ex's lines,
	// the name of the file they go to, and a func called once the exchange
	// has written its last line (see Recording).
	Files func(ex int) (*tape.ExchangeWriter, string, func())
	// Start is the capture's start: every line's t is measured from it on the
	// monotonic clock. The zero value means the time New is called.
	Start time.Time
	// Transport performs the upstream requests. If nil, a clone of
	// http.DefaultTransport sized for many concurrent streams is used.
	Transport http.RoundTripper
	// MaxRequestBody caps the recorded copy of each request body. Zero means
	// DefaultMaxRequestBody.
	MaxRequestBody int
	// MaxHeldRequestBodies bounds the memory request bodies take: the
	// bytes all exchanges in flight hold for the capture until their
	// request line is written. Past it (and past the first 64 KiB of each
	// body), a body's recorded copy is cut, with a note saying why; the
	// whole body still goes upstream. Zero means
	// DefaultMaxHeldRequestBodies.
	MaxHeldRequestBodies int64
	// MaxDecoded caps the decoded copy of a compressed body that the
	// recorder reads to tell how its stream ended and to look for the
	// request's secrets in it: per body, and twice it per exchange. Zero
	// means coding.MaxStreamBody. The body itself is recorded and
	// forwarded whole whatever it decodes to.
	MaxDecoded int64
	// Leg is what this recorder records: the whole exchange (the default),
	// or one leg of a sandwich around a proxy under test.
	Leg Leg
	// Numbering numbers the exchanges. The two legs of a sandwich must share
	// one; nil means the recorder's own.
	Numbering *Numbering
	// Redaction says what is redacted before anything reaches the writer:
	// nil applies the built-in rules (secret headers, query parameters and
	// JSON body fields, and the request's secret values masked where a
	// response echoes them); a parsed --redact adds its patterns.
	Redaction *tape.Redaction
	// OnDone, if set, is called once per exchange after both sides ended
	// (not by the back leg of a sandwich, whose exchanges the front reports).
	// It is called from the exchange's goroutine and must not block long.
	OnDone func(Summary)
}

// Recorder is a recording reverse proxy. It is an http.Handler; use one per
// capture file. It is safe for concurrent use.
type Recorder struct {
	opts Options
	// passthrough is set when the engine forwards the upstream bytes as
	// they are.
	passthrough bool
	start       time.Time
	proxy       *httputil.ReverseProxy
	numbering   *Numbering
	live        sync.WaitGroup
	// held is what request bodies in flight may still hold; wsHeld what
	// WebSocket messages held back to be checked may (see wsGuard).
	held, wsHeld *heldBytes
	// testTap, set by tests, is called at each tap (see exchange.testTap).
	testTap func(where string, p []byte)
}

// Wait blocks until every exchange in flight has been recorded to its end.
// Call it after the server stopped accepting requests and before closing
// the capture writer.
func (r *Recorder) Wait() { r.live.Wait() }

// New returns a Recorder for opts. It checks the engine description once, so
// a bad profile or switch fails here rather than on every request.
func New(opts Options) (*Recorder, error) {
	if opts.Upstream != nil && (opts.Upstream.Scheme == "" || opts.Upstream.Host == "") {
		return nil, errors.New("capture: upstream must be an absolute URL such as https://api.openai.com")
	}
	if opts.Writer == nil && opts.Files == nil {
		return nil, errors.New("capture: no capture writer")
	}
	eng, err := shape.New(opts.Engine, shape.Exchange{Status: http.StatusOK, ContentType: "text/event-stream"})
	if err != nil {
		return nil, fmt.Errorf("capture: engine: %w", err)
	}
	_, passthrough := eng.(shape.Passthrough)
	if opts.MaxRequestBody <= 0 {
		opts.MaxRequestBody = DefaultMaxRequestBody
	}
	if opts.MaxHeldRequestBodies <= 0 {
		opts.MaxHeldRequestBodies = DefaultMaxHeldRequestBodies
	}
	if opts.Transport == nil {
		opts.Transport = defaultTransport()
	}
	r := &Recorder{opts: opts, passthrough: passthrough, start: opts.Start, numbering: opts.Numbering,
		held: &heldBytes{left: opts.MaxHeldRequestBodies}, wsHeld: &heldBytes{left: maxHeldWebSocket}}
	if r.numbering == nil {
		r.numbering = new(Numbering)
	}
	if r.start.IsZero() {
		r.start = time.Now()
	}
	r.proxy = &httputil.ReverseProxy{
		Rewrite:        r.rewrite,
		Transport:      opts.Transport,
		FlushInterval:  -1,
		ModifyResponse: r.modifyResponse,
		ErrorHandler:   r.errorHandler,
		ErrorLog:       log.New(io.Discard, "", 0), // failures are recorded and summarised instead
		BufferPool:     copyBuffers{},
	}
	return r, nil
}

func defaultTransport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 0
	t.MaxIdleConnsPerHost = 1024
	t.DisableCompression = true
	return t
}

// now is the monotonic time since the capture started, in nanoseconds.
func (r *Recorder) now() int64 { return int64(time.Since(r.start)) }

type exchangeKey struct{}

// ServeHTTP implements http.Handler: it forwards req upstream and records
// the exchange.
func (r *Recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method == "PRI" && req.RequestURI == "*" {
		// The HTTP/2 connection preface, read as a request by a server
		// that does not speak h2c: no exchange to record or forward.
		w.Header().Set("Connection", "close")
		http.Error(w, "seam: this listener does not speak HTTP/2 without TLS (h2c); use HTTP/1.1", http.StatusHTTPVersionNotSupported)
		return
	}
	r.live.Add(1)
	defer r.live.Done()
	t0 := r.now()
	ex, paired := r.number(req)
	x := &exchange{
		rec:    r,
		ex:     ex,
		paired: paired,
		t0:     t0,
		req:    req,
		upEnd:  make(chan struct{}),
		budget: r.decodeBudget(),
	}
	if r.opts.Files != nil {
		var release func()
		x.tw, x.file, release = r.opts.Files(x.ex)
		defer release() // after x.finish, deferred below, wrote the last line
	} else {
		x.tw = r.opts.Writer.Exchange(x.ex)
	}
	x.masks(r.opts.Redaction.Secrets(req.Header, req.URL))
	// The proxy gets a copy of req: the server inspects the request it
	// handed over (its body type decides whether the connection is reused).
	out := req.WithContext(contextWith(req, x))
	x.body = newBodyTap(req.Body, req.ContentLength, r.opts.MaxRequestBody)
	x.body.held, x.body.x = r.held, x
	x.body.expectContinue = strings.EqualFold(req.Header.Get("Expect"), "100-continue")
	if req.Body != nil && req.Body != http.NoBody {
		// The request line is written once the body has gone upstream.
		x.body.done = x.writeRequest
		out.Body = x.body
	} else {
		x.writeRequest()
	}
	// Keep the request body readable after the response has begun: without
	// this the server discards the rest of it when the proxy writes the
	// response headers, and the transport, still reading it to send
	// upstream, closes the upstream connection mid-stream.
	http.NewResponseController(w).EnableFullDuplex()
	cw := &clientWriter{ResponseWriter: w, x: x}
	defer func() {
		v := recover()
		if v != nil && v != http.ErrAbortHandler {
			x.breakOn("handler", v)
			v = http.ErrAbortHandler
		}
		if v == nil && x.isBroken() && !x.answered {
			v = http.ErrAbortHandler // a tap broke: the client's answer is not whole
		}
		x.finish(cw)
		if v != nil {
			panic(v) // let the server abort the response
		}
	}()
	r.proxy.ServeHTTP(cw, out)
}

func (r *Recorder) rewrite(pr *httputil.ProxyRequest) {
	if r.opts.Upstream == nil {
		// Forward mode: the request names its host; the Host header the
		// client sent goes along, and Proxy-Authorization was for seam.
		pr.SetURL(&url.URL{Scheme: pr.In.URL.Scheme, Host: pr.In.URL.Host})
		pr.Out.Host = pr.In.Host
	} else {
		pr.SetURL(r.opts.Upstream)
		// seam stands in for the upstream and is not the proxy these
		// credentials are for: forward them, although the header is
		// hop-by-hop.
		if v := pr.In.Header.Values("Proxy-Authorization"); len(v) > 0 {
			pr.Out.Header["Proxy-Authorization"] = v
		}
	}
	if !r.passthrough {
		// An engine that reshapes the stream reads events, so it asks for
		// them uncompressed, and the capture says so. In passthrough the
		// client's Accept-Encoding goes upstream untouched: the capture
		// keeps the wire bytes and readers decode a copy.
		if ae := pr.In.Header.Get("Accept-Encoding"); ae != "" && !strings.EqualFold(ae, "identity") {
			x := exchangeFrom(pr.In)
			x.tw.Note(r.now(), "seam asked the upstream for Accept-Encoding: identity instead of the client's "+strconv.Quote(ae)+": the "+r.opts.Engine.Profile+" engine reshapes the stream")
		}
		pr.Out.Header.Set("Accept-Encoding", "identity")
	}
	switch r.opts.Leg {
	case Front:
		pr.Out.Header.Set(ExchangeHeader, strconv.Itoa(exchangeFrom(pr.In).ex))
	case Back:
		pr.Out.Header.Del(ExchangeHeader)
	}
}

func (r *Recorder) modifyResponse(resp *http.Response) (err error) {
	x := exchangeFrom(resp.Request)
	defer x.catch("response", &err)
	if resp.StatusCode == http.StatusSwitchingProtocols {
		return r.upgraded(x, resp)
	}
	ct := resp.Header.Get("Content-Type")
	if r.records(tape.Upstream) {
		x.tw.Response(tape.Response{
			Side: tape.Upstream, T: r.now(),
			Status: resp.StatusCode, Headers: r.opts.Redaction.Headers(resp.Header),
		})
	}
	eng, err := shape.New(r.opts.Engine, shape.Exchange{
		Method: x.req.Method, Path: x.req.URL.Path, Status: resp.StatusCode, ContentType: ct,
	})
	if err != nil {
		return fmt.Errorf("build engine: %w", err)
	}
	_, pass := eng.(shape.Passthrough)
	if !pass {
		// The engine may change the bytes, so the upstream length no longer holds.
		resp.Header.Del("Content-Length")
		resp.ContentLength = -1
	}
	ce := resp.Header.Get("Content-Encoding")
	x.upWatch = newStreamWatch(ct, ce, x.req.URL.Path, x.budget)
	x.upWatch.tap = r.testTap
	x.guard(tape.Upstream, x.upWatch)
	x.mirror = pass && r.opts.Leg == Whole
	ub := &upstreamBody{x: x, rc: resp.Body, engine: eng, passthrough: pass, watch: x.upWatch}
	if cs, err := coding.Codings(ce); !pass && err == nil && len(cs) > 0 {
		// An engine reads events, not compressed bytes: it gets the body
		// decoded, and so does the client, however long (what the client
		// gets is not capped: it reads it). The upstream side keeps the
		// wire bytes and their Content-Encoding.
		ub.wire = &wireSource{b: ub}
		ub.dec, _ = coding.Unlimited.NewReader(ub.wire, ce)
		resp.Header.Del("Content-Encoding")
	}
	resp.Body = ub
	return nil
}

// decodeBudget returns the budget of one exchange's decoded copies.
func (r *Recorder) decodeBudget() *coding.Budget {
	if n := r.opts.MaxDecoded; n > 0 {
		return coding.NewBudget(n, 2*n)
	}
	return coding.NewStreamBudget()
}

// errorHandler runs when the upstream could not be reached or its response
// could not be used: it records the failure and answers 502 (403 for a
// destination forward mode refuses) with a JSON error body that SDKs show
// as the error message.
func (r *Recorder) errorHandler(w http.ResponseWriter, req *http.Request, err error) {
	x := exchangeFrom(req)
	x.body.settle()
	x.writeRequest()
	outcome := failedOutcome(req, err, false) // an EOF here is a connection closed before any answer
	x.endUpstream(outcome, err, 0)
	if outcome == tape.ClientAborted {
		return // nobody is left to answer
	}
	up := r.opts.Upstream
	if up == nil {
		up = &url.URL{Scheme: req.URL.Scheme, Host: req.URL.Host}
	}
	msg := fmt.Sprintf("seam: upstream %s failed: %v", tape.RedactUpstream(up), err)
	typ, code, status := "seam_upstream_error", "upstream_unreachable", http.StatusBadGateway
	var refused *RefusedError
	if errors.As(err, &refused) {
		msg, code, status = refused.Error(), "destination_refused", http.StatusForbidden
	}
	if x.isBroken() {
		// The client is told, unrecorded: the exchange's recording has
		// stopped.
		msg, typ, code = x.brokenErr(), "seam_recorder_error", "recorder_error"
		if cw, ok := w.(*clientWriter); ok {
			w = cw.ResponseWriter
		}
		x.answered = true
	}
	body, _ := json.Marshal(map[string]any{"error": map[string]string{
		"message": msg, "type": typ, "code": code,
	}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// bodyTap passes a request body through to the upstream while keeping a copy
// of its first max bytes for the capture. When the body has been read (EOF,
// all Content-Length bytes, or settled) it calls done once.
//
// Reads are serialised, and [bodyTap.settle] ends them: once the handler
// returns, the server owns the connection again, and a transport still
// writing the request upstream must not read it (net/http panics with
// "invalid concurrent Body.Read call" under full duplex).
type bodyTap struct {
	rc   io.ReadCloser
	max  int
	size int64 // Content-Length, or -1
	done func()

	expectContinue bool // the client sends the body only after "100 Continue"

	// x is the exchange the body belongs to: a panic while tapping it
	// (on the transport's goroutine) breaks that exchange. Nil in tests.
	x *exchange

	readMu  sync.Mutex // held across rc.Read
	settled bool       // the handler has returned; rc is the server's again

	mu        sync.Mutex
	buf       []byte
	read      int64
	truncated bool
	complete  bool
	once      sync.Once
	lost      atomic.Bool // bytes went by that the copy does not hold

	// held is the recorder's budget for request bodies in flight; reserved
	// is what this body took from it, and starved is set when it had to
	// stop keeping bytes because the budget was used up.
	held     *heldBytes
	reserved int64
	starved  bool
}

func newBodyTap(rc io.ReadCloser, size int64, max int) *bodyTap {
	t := &bodyTap{rc: rc, max: max, size: size}
	if rc == nil || rc == http.NoBody {
		t.complete = true
	}
	return t
}

// errSettled is what a late reader of a settled request body gets.
var errSettled = errors.New("seam: the exchange has ended; request body no longer readable")

func (t *bodyTap) Read(p []byte) (n int, err error) {
	if t.x != nil {
		if t.x.isBroken() {
			return 0, errBroken
		}
		defer t.x.catch("request body", &err)
	}
	t.readMu.Lock()
	defer t.readMu.Unlock()
	if t.settled {
		return 0, errSettled
	}
	return t.readLocked(p)
}

func (t *bodyTap) readLocked(p []byte) (_ int, _ error) {
	n, err := t.rc.Read(p)
	kept := false
	defer func() {
		if !kept {
			t.lost.Store(true) // a panic took bytes read past the copy
		}
	}()
	if t.x != nil {
		t.x.testTap("request body", p[:n])
	}
	t.mu.Lock()
	room := t.max - len(t.buf)
	if t.truncated {
		room = 0 // the kept copy is a prefix: once cut, it stays cut
	}
	keep := t.reserve(min(n, room))
	if keep > 0 {
		t.buf = append(t.buf, p[:keep]...)
	}
	if n > keep {
		t.truncated = true
		t.starved = t.starved || keep < min(n, room)
	}
	t.read += int64(n)
	if err == io.EOF || (t.size >= 0 && t.read >= t.size) {
		t.complete = true
	}
	complete := t.complete
	t.mu.Unlock()
	kept = true
	if complete {
		t.finish()
	}
	return n, err
}

// Close does not close the server's request body: the server does that
// after the handler, and [bodyTap.settle] still reads what the transport
// left unread, so the capture keeps the request the client sent even when
// the upstream never took it.
func (t *bodyTap) Close() error { return nil }

// settle runs when the handler is about to return. It reads what the
// transport has not yet sent of the body (the upstream may answer before it
// reads the request, as a 4xx or 5xx often does), so the capture keeps the
// whole request and the server sees the body end while the handler still
// owns it; then it turns away any later read or close.
func (t *bodyTap) settle() {
	t.readMu.Lock()
	defer t.readMu.Unlock()
	if t.settled {
		return
	}
	t.settled = true
	t.mu.Lock()
	complete, started := t.complete, t.read > 0
	t.mu.Unlock()
	if complete {
		return
	}
	if t.expectContinue && !started {
		// The client waits for "100 Continue", which it will not get now
		// that the final response has been sent: it sends no body.
		t.finish()
		return
	}
	buf := copyBuffers{}.Get()
	defer copyBuffers{}.Put(buf)
	for {
		if _, err := t.readLocked(buf); err != nil {
			break
		}
	}
	t.finish()
}

func (t *bodyTap) finish() {
	if t.done != nil {
		t.once.Do(t.done)
	}
}

// reserve returns how many of the next k bytes the tap may keep: the first
// freeRequestBody bytes of a body are free, the rest come from the
// recorder's budget. t.mu is held.
func (t *bodyTap) reserve(k int) int {
	if k <= 0 || t.held == nil {
		return max(k, 0)
	}
	free := min(k, max(freeRequestBody-len(t.buf), 0))
	got := t.held.take(int64(k - free))
	t.reserved += got
	return free + int(got)
}

// release drops the kept copy once the request line holds it, and gives its
// bytes back to the recorder's budget.
func (t *bodyTap) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = nil
	if t.held != nil {
		t.held.give(t.reserved)
	}
	t.reserved = 0
}

// heldBytes is the budget of bytes request bodies in flight may hold.
type heldBytes struct {
	mu   sync.Mutex
	left int64
}

// take reserves up to n bytes and returns how many it got.
func (h *heldBytes) take(n int64) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	got := min(n, h.left)
	h.left -= got
	return got
}

func (h *heldBytes) give(n int64) {
	h.mu.Lock()
	h.left += n
	h.mu.Unlock()
}

// snapshot returns the kept bytes and whether they are not the whole body.
func (t *bodyTap) snapshot() ([]byte, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf, t.truncated || !t.complete || t.lost.Load()
}

// cutForMemory reports whether the kept copy was cut because the budget for
// request bodies in flight was used up, and how much was kept.
func (t *bodyTap) cutForMemory() (bool, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.starved, len(t.buf)
}

// copyBuffers pools the proxy's copy buffers, so a stream does not allocate
// one. A stream holds its buffer while it is open, so the size is what an
// open stream costs: 16 KiB holds dozens of events, so a backlogged
// upstream is still read in few calls, at half the memory of the usual
// 32 KiB.
type copyBuffers struct{}

// copyBufferSize is the size of the proxy's copy buffers, the largest
// chunk a Read records.
const copyBufferSize = 16 << 10

var copyBufferPool = sync.Pool{New: func() any { b := make([]byte, copyBufferSize); return &b }}

func (copyBuffers) Get() []byte { return *copyBufferPool.Get().(*[]byte) }

func (copyBuffers) Put(b []byte) { copyBufferPool.Put(&b) }
