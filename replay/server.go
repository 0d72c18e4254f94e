package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/tape"
)

// Mode says what a [Server] does with a request, in the vocabulary of VCR
// (the Ruby library that records HTTP interactions to "cassettes").
type Mode string

// The modes. Forwarding means handing the request to [ServerOptions.Miss];
// whether what it forwards is recorded is up to that handler.
const (
	// ModeNone replays strictly: a request that matches no recorded
	// exchange gets a 404 naming the closest exchange and why it differs.
	// The empty Mode means ModeNone.
	ModeNone Mode = "none"
	// ModeOnce replays strictly when any exchange was loaded, and forwards
	// every request when none was (the capture does not exist yet).
	ModeOnce Mode = "once"
	// ModeNewEpisodes replays the requests that match and forwards the
	// rest.
	ModeNewEpisodes Mode = "new_episodes"
	// ModeAll forwards every request and never replays (to record afresh).
	ModeAll Mode = "all"
	// ModePassthrough forwards every request and never replays (with a Miss
	// handler that records nothing).
	ModePassthrough Mode = "passthrough"
)

// Modes lists the modes in the order help shows them.
func Modes() []Mode {
	return []Mode{ModeNone, ModeOnce, ModeNewEpisodes, ModeAll, ModePassthrough}
}

// ParseMode parses a mode name as written on the command line.
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes() {
		if string(m) == s {
			return m, nil
		}
	}
	names := make([]string, 0, 5)
	for _, m := range Modes() {
		names = append(names, string(m))
	}
	return "", fmt.Errorf("unknown mode %q (modes: %s)", s, strings.Join(names, ", "))
}

// ServerOptions configures a [Server].
type ServerOptions struct {
	// Speed scales the recorded gaps between chunks: 1 is the original
	// timing, 2 twice as fast, 0 sends everything at once.
	Speed float64
	// Faults are injected into every response, in order.
	Faults []Fault
	// Seed seeds the choices faults make (which event, where to split);
	// the same seed gives the same bytes.
	Seed uint64
	// Mode says which requests are replayed and which are forwarded to
	// Miss. The zero value is ModeNone.
	Mode Mode
	// Miss handles the requests Mode forwards, typically a recording
	// reverse proxy to the real upstream. Its request body is intact. When
	// Miss is nil such requests get a 502.
	Miss http.Handler
	// Ignore names top-level request fields that matching ignores, in
	// addition to those of [DefaultIgnore].
	Ignore []string
	// Redaction is applied to the recorded request bodies and to each
	// request's before they are compared, so that a request carrying its
	// real key matches a recording whose key was redacted (seam record
	// redacts with the built-in rules, nil here; pass the same --redact
	// patterns the capture was recorded with).
	Redaction *tape.Redaction
	// Log, when set, is told of every request answered from the captures
	// or refused with a 404, once its answer is written (seam serve prints
	// a line each). Requests forwarded to Miss are not: its recorder
	// reports them.
	Log func(Served)
}

// Served is what a [Server] did with one request, for ServerOptions.Log.
type Served struct {
	Method string
	// Host is the host the request named (through a forward proxy), or "".
	Host string
	Path string
	// Exchange names the recorded exchange that answered ("exchange 4",
	// or "exchange 4 of name.ndjson"); "" for a miss.
	Exchange string
	// Status is the status answered: the recorded one, a status fault's,
	// or 404 for a miss.
	Status int
	// Miss says why no exchange matched; "" for a hit.
	Miss string
	// Faults are the faults applied to the answer, as --fault spells them.
	Faults []string
	// Gone is set when the client went away before the answer ended.
	Gone bool
	// Broken is set when the server broke the answer off mid-stream: a
	// disconnect fault, or a recorded upstream that broke off.
	Broken bool
	Dur    time.Duration
}

// String says what happened in one line: "hit  POST /v1/chat/completions
// → exchange 2: 200 in 1.2s, faults split-rune" or "miss POST … → 404:
// why". It holds the request's path and bytes of its body: print it
// through a terminal sanitiser.
func (s Served) String() string {
	req := s.Method + " " + s.Host + s.Path
	if s.Exchange == "" {
		return "miss " + req + " → " + strconv.Itoa(s.Status) + ": " + s.Miss
	}
	out := fmt.Sprintf("hit  %s → %s: %d in %s", req, s.Exchange, s.Status, units.Duration(int64(s.Dur)))
	if len(s.Faults) > 0 {
		out += ", faults " + strings.Join(s.Faults, " ")
	}
	if s.Gone {
		out += ", the client went away first"
	} else if s.Broken {
		out += ", broken off mid-stream"
	}
	return out
}

func (s *Server) log(v Served) {
	if s.opts.Log != nil {
		s.opts.Log(v)
	}
}

// Server is a mock upstream: it answers each request with the upstream side
// of the recorded exchange it matches, chunk by chunk, flushing each chunk
// at its recorded time. A request matches an exchange with the same method,
// path and canonical body (see [Canonical]), and, when both name one, the
// same host: a request that comes through a forward proxy has an absolute
// URL, and an exchange of a forward-proxy recording has its host. When several exchanges match
// (the same request recorded more than once), they answer in recorded order,
// the last one repeating once all have been served. A request that matches
// no exchange gets a 404 whose JSON body names the closest exchange and why
// it did not match, or goes to [ServerOptions.Miss], as the mode says.
// A Server is safe for concurrent use.
type Server struct {
	opts    ServerOptions
	ignore  map[string]bool
	entries []*entry
	byKey   map[string][]*entry
	loaded  int // exchanges in the captures, replayable or not

	mu     sync.Mutex
	served map[string]int // per key, how many of its entries were served
}

// entry is one recorded exchange ready for matching.
type entry struct {
	x            *tape.Exchange
	label        string // "exchange 4", or "exchange 4 of name.ndjson"
	method, path string
	// host is the host the exchange was recorded for (a forward-proxy
	// recording); "" answers for any host.
	host string
	req  *request
}

// answers reports whether e may answer a request for host ("" when the
// request does not say, as with a base-URL client).
func (e *entry) answers(host string) bool {
	return host == "" || e.host == "" || strings.EqualFold(e.host, host)
}

// NewServer returns a Server answering from the exchanges of caps. Exchanges
// without a recorded request or upstream response are skipped.
func NewServer(caps []*tape.Capture, opts ServerOptions) *Server {
	if opts.Mode == "" {
		opts.Mode = ModeNone
	}
	s := &Server{opts: opts, ignore: ignoreSet(opts.Ignore), byKey: map[string][]*entry{}, served: map[string]int{}}
	for _, c := range caps {
		s.loaded += len(c.Exchanges)
		for _, x := range c.Exchanges {
			if x.Request == nil || x.Upstream.Response == nil {
				continue
			}
			path, _, _ := strings.Cut(x.Request.URL, "?")
			// The capture keeps the path as sent, escapes and all (Bedrock's
			// model ids hold "%3A"); requests are matched on their decoded
			// path.
			if p, err := url.PathUnescape(path); err == nil {
				path = p
			}
			body, _ := opts.Redaction.Body(x.Request.Body, firstValue(x.Request.Headers["content-type"]))
			e := &entry{x: x, label: fmt.Sprintf("exchange %d", x.Ex), method: x.Request.Method, path: path,
				host: x.Request.Host, req: newRequest(body, s.ignore)}
			if len(caps) > 1 {
				e.label += " of " + filepath.Base(c.Name)
			}
			s.entries = append(s.entries, e)
			k := matchKey(e.method, e.path, e.req)
			s.byKey[k] = append(s.byKey[k], e)
		}
	}
	return s
}

func matchKey(method, path string, r *request) string {
	return method + " " + path + "\n" + r.key
}

// mode is the mode in effect: ModeOnce turns into ModeNone or ModeAll.
// Any exchange loaded counts, even one that cannot be replayed (it has no
// upstream response): the capture exists, so once does not record it again.
func (s *Server) mode() Mode {
	if s.opts.Mode == ModeOnce {
		if s.loaded > 0 {
			return ModeNone
		}
		return ModeAll
	}
	return s.opts.Mode
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mode := s.mode()
	if mode == ModeAll || mode == ModePassthrough {
		s.forward(w, r, mode)
		return
	}
	var body bytes.Buffer
	if r.Body != nil {
		// Request bodies are small JSON documents; matching needs all of one.
		if _, err := body.ReadFrom(http.MaxBytesReader(w, r.Body, 64<<20)); err != nil {
			http.Error(w, "seam: read request body: "+err.Error(), http.StatusBadRequest)
			return
		}
	}
	// A request through a forward proxy names its host; the exchanges
	// recorded for another host do not answer it.
	host := ""
	if r.URL.IsAbs() {
		host = r.URL.Host
	}
	redacted, _ := s.opts.Redaction.Body(body.Bytes(), r.Header.Get("Content-Type"))
	start := time.Now()
	e, why := s.match(r.Method, host, r.URL.Path, redacted)
	if e != nil {
		broken := s.play(r.Context(), w, e.x, r.Header.Get("Accept-Encoding"))
		v := Served{Method: r.Method, Host: host, Path: r.URL.Path, Exchange: e.label, Status: e.x.Upstream.Response.Status,
			Gone: r.Context().Err() != nil, Broken: broken, Dur: time.Since(start)}
		for _, f := range s.opts.Faults {
			v.Faults = append(v.Faults, f.String())
		}
		if f, ok := statusFault(s.opts.Faults); ok {
			v.Status = f.N
		}
		s.log(v)
		if broken {
			panic(http.ErrAbortHandler) // drop the connection mid-stream
		}
		return
	}
	if mode == ModeNewEpisodes {
		// Miss gets a copy of r with the body read for matching: the server
		// still owns r and its body.
		fwd := r.WithContext(r.Context())
		fwd.Body = io.NopCloser(bytes.NewReader(body.Bytes()))
		s.forward(w, fwd, mode)
		return
	}
	writeError(w, http.StatusNotFound, "seam_no_match",
		"seam: no recorded exchange matches "+r.Method+" "+host+r.URL.Path+": "+why)
	s.log(Served{Method: r.Method, Host: host, Path: r.URL.Path, Status: http.StatusNotFound, Miss: why, Dur: time.Since(start)})
}

func (s *Server) forward(w http.ResponseWriter, r *http.Request, mode Mode) {
	if s.opts.Miss == nil {
		writeError(w, http.StatusBadGateway, "seam_no_upstream",
			"seam: mode "+string(mode)+" forwards "+r.Method+" "+r.URL.Path+" upstream, but no upstream is set")
		return
	}
	s.opts.Miss.ServeHTTP(w, r)
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"message": msg, "type": typ}})
}

// match finds the exchange recorded for method, path and body. Among equal
// matches it takes the first not yet served, then repeats the last. On a
// miss it says which exchange came closest and why it differs.
func (s *Server) match(method, host, path string, body []byte) (*entry, string) {
	req := newRequest(body, s.ignore)
	k := matchKey(method, path, req)
	var es []*entry
	for _, e := range s.byKey[k] {
		if e.answers(host) {
			es = append(es, e)
		}
	}
	if len(es) > 0 {
		k += "\x00" + strings.ToLower(host)
		s.mu.Lock()
		i := s.served[k]
		if i < len(es)-1 {
			s.served[k] = i + 1
		} else {
			i = len(es) - 1
		}
		s.mu.Unlock()
		return es[i], ""
	}
	if len(s.entries) == 0 {
		if s.loaded > 0 {
			return nil, fmt.Sprintf("none of the %d exchanges loaded has a recorded upstream response to replay", s.loaded)
		}
		return nil, "no exchanges loaded"
	}
	var best, elsewhere *entry
	var bestC closeness
	for _, e := range s.entries {
		if e.method != method || e.path != path {
			continue
		}
		if !e.answers(host) {
			if elsewhere == nil {
				elsewhere = e
			}
			continue
		}
		if c := compare(req, e.req); best == nil || c.better(bestC) {
			best, bestC = e, c
		}
	}
	if best == nil && elsewhere != nil {
		return nil, fmt.Sprintf("no exchange for host %s has that endpoint; %s is %s %s on host %s", host, elsewhere.label, elsewhere.method, elsewhere.path, elsewhere.host)
	}
	if best == nil {
		e := s.entries[0]
		return nil, fmt.Sprintf("no exchange has that endpoint; %s is %s %s", e.label, e.method, e.path)
	}
	why := explain(best.label, req, best.req)
	if best.x.Request.BodyTruncated {
		why += " (its recorded request body was truncated by the recorder, so no request can match it)"
	}
	return nil, why
}

// skipHeaders are not replayed: they describe the original connection, or
// were redacted when recorded. Content-Encoding is replayed only with the
// recorded compressed bytes (see play).
var skipHeaders = map[string]bool{
	"content-length": true, "transfer-encoding": true, "connection": true,
	"keep-alive": true, "content-encoding": true, "date": true,
}

// DecodedHeader names the response header with which the Server says it
// decoded a recorded compressed body (its value is the recorded
// Content-Encoding): the client did not accept that coding, or a fault
// reshapes the body's events.
const DecodedHeader = "X-Seam-Decoded"

// MissEndpoint is the endpoint of a recording (record.StartRecording)
// that is a mock upstream forwarding what it cannot answer: it answers from
// caps as NewServer does with o, and hands each request o.Mode forwards to
// the endpoint's recorder, which sends it to upstream (nil in forward
// mode) and records the exchange. o.Miss is set to that recorder.
func MissEndpoint(listen string, upstream *url.URL, caps []*tape.Capture, o ServerOptions) *record.Endpoint {
	return &record.Endpoint{Listen: listen, Upstream: upstream, Leg: record.Whole,
		Handler: func(rec *record.Recorder) http.Handler {
			o.Miss = rec
			return NewServer(caps, o)
		}}
}
