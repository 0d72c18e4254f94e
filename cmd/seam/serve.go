package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/seam-dev/seam/capture"
	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/listen"
	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible"
)

type serveOptions struct {
	listen   string
	speed    float64
	faults   faultFlag
	seed     uint64
	mode     string
	upstream string
	output   string
	ignore   listFlag
	quiet    bool
	fwd      forwardFlags
	allow    listFlag
	redact   listFlag
	otlp     otlpFlags
}

// faultFlag collects repeated --fault flags.
type faultFlag []replay.Fault

func (f *faultFlag) String() string {
	var s []string
	for _, x := range *f {
		s = append(s, x.String())
	}
	return strings.Join(s, ",")
}

func (f *faultFlag) Set(v string) error {
	x, err := replay.ParseFault(v)
	if err != nil {
		return err
	}
	*f = append(*f, x)
	return nil
}

// serveModeHelp is one line per mode, for the help text.
const serveModeHelp = `
  none          strict replay (default): a request that matches nothing gets
                a 404 naming the closest exchange and why it differs
  once          one CAPTURE: if it does not exist yet (or is a directory with
                no captures), forward everything to --upstream and record it
                there; if it exists, replay it strictly as none
  new_episodes  replay what matches; forward the rest to --upstream and
                record it to -o, a new file or a directory such as the one
                replayed (new episodes answer from the next run on)
  all           forward and record everything to -o; replay nothing
  passthrough   forward everything to --upstream; replay and record nothing`

func serveCommand() *command {
	return &command{
		name:    "serve",
		summary: "serve captures as a mock upstream, at recorded timing",
		usage:   "seam serve [--mode M] [--upstream URL] [-o FILE|DIR] [--listen ADDR] [--speed N] [--fault F]... [CAPTURE|DIR...]",
		help:    serveHelp,
		example: "seam serve --speed 0 captures/",
		new:     func() runner { return &serveOptions{} },
	}
}

// serveHelp is the text of "seam help serve".
var serveHelp = `
Answers OpenAI- and Anthropic-style requests from recorded exchanges, with the
upstream side of the exchange a request matches, chunk by chunk with the
recorded boundaries and timing (scaled by --speed; 0 sends at once). Point any
client or proxy at it, e.g. OPENAI_BASE_URL=http://127.0.0.1:8081/v1.

Matching: same method and path, and the same JSON body once made canonical.
Object keys may come in any order. These top-level fields are ignored (add
more with --ignore):
  ` + strings.Join(replay.DefaultIgnore(), ", ") + `
Secret fields are compared as seam record stores them ("[redacted]"), so a
client sending its real key matches the recording; a capture recorded with
--redact patterns matches when serve is given the same ones.
Ids the upstream made up and the client sends back (Chat tool call id and
tool_call_id, Anthropic tool_use id and tool_use_id, Responses call_id and
item ids, previous_response_id) compare by order of first appearance: which
result answers which call still counts, the id values do not. The model,
every message in order (role, content, tool calls, tool results) and every
other field count. A request recorded several times (a retry) answers with
each recording in turn, then repeats the last. A miss gets a 404 whose JSON
error names the closest exchange on that endpoint (same model first, then
the longest equal message history) and the first difference.

With --forward, seam serve is a forward proxy like seam record --forward
(HTTPS_PROXY, seam's CA, the same --host and --intercept-all): a client that
cannot change its base URL is answered from captures recorded that way, each
request matching only the exchanges recorded for its host; hosts not
intercepted are tunnelled to the network. Modes that forward send misses to
the host each request names (no --upstream).

Modes (--mode), in VCR's vocabulary:` + serveModeHelp + `

Only requests addressed to an IP address, localhost or the --listen name
are answered (a web page rebinding a DNS name to 127.0.0.1 would read
recorded prompts in the misses); --allow-host NAME accepts another name.

Each request gets a line on stderr as its answer ends, unless -q: a hit
names the exchange that answered, its status, how long it took and the
faults applied; a miss says why nothing matched; a forwarded exchange is
summed up as seam record does. Recordings are new capture files, as seam
record writes them (-o defaults to ./captures/seam-<UTC time>.ndjson).

A body recorded compressed (Content-Encoding gzip, deflate, br or zstd) is
sent as recorded to a client whose Accept-Encoding allows it; any other
client, or any --fault, gets it decoded, without Content-Encoding, and an
` + replay.DecodedHeader + ` header naming the coding removed.

--fault injects a departure from the recording into every replayed response,
to see how a client or proxy copes; repeat it to combine faults, applied in
order. Faults that pick a position (which event, where to split) draw from
--seed, so the same seed gives the same bytes. latency waits before the
response, stall before an event, chunk or byte, jitter moves every gap by
up to ± its duration (never below zero); these wait in wall-clock time
whatever --speed says. seam replay --fault and seam check --fault apply
the same faults offline. Faults: ` + strings.Join(replay.FaultKinds(), ", ") + `.

Examples:
  # replay strictly, as fast as the client reads
  seam serve --speed 0 captures/
  # record a test's conversation on the first run, replay it on every later one
  seam serve --mode once --upstream https://api.openai.com captures/chat.ndjson
  # replay what was recorded, record what is new into the same directory
  seam serve --mode new_episodes --upstream https://api.openai.com -o captures/ captures/
  # see how a client copes with a split UTF-8 rune and rate limiting
  seam serve --fault split-rune --fault status=429:2 captures/
  # a slow first byte and a two-second stall at event 40, nothing else waits
  seam serve --speed 0 --fault latency=300ms --fault stall=2s@event:40 captures/`

func (o *serveOptions) flags(fs *flag.FlagSet) {
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8081", "`address` to listen on (a port alone: 127.0.0.1:PORT)")
	fs.Float64Var(&o.speed, "speed", 1, "playback speed of the recorded timing (0 sends at once)")
	fs.Var(&o.faults, "fault", "inject `fault` into every response, e.g. split-rune, drop-delta=3, status=429:2 (repeatable)")
	fs.Uint64Var(&o.seed, "seed", 1, "`seed` for the positions faults pick")
	fs.StringVar(&o.mode, "mode", string(replay.ModeNone), "`mode`: none, once, new_episodes, all or passthrough (see above)")
	fs.StringVar(&o.upstream, "upstream", "", "upstream base `URL` for the modes that forward")
	fs.StringVar(&o.output, "o", "", "capture `file` or directory for recordings (default ./captures/seam-<UTC time>.ndjson; - for stdout)")
	fs.Var(&o.ignore, "ignore", "also ignore the top-level request `field` when matching (repeatable)")
	fs.BoolVar(&o.quiet, "q", false, "do not print a line per request (hit, miss, forwarded)")
	o.fwd.register(fs)
	fs.Var(&o.redact, "redact", "also redact `pattern` when recording, and match as the capture was recorded with it: header:NAME, json:PATH or re:REGEXP (repeatable)")
	fs.Var(&o.allow, "allow-host", "also answer requests whose Host is `name` (repeatable; * for any): see Security in the README")
	o.otlp.register(fs)
}

// listFlag collects a repeated string flag.
type listFlag []string

func (f *listFlag) String() string { return strings.Join(*f, ",") }

func (f *listFlag) Set(v string) error {
	*f = append(*f, v)
	return nil
}

// servePlan is what a serve run does (replay.PlanServe decides it from
// the flags), with the captures loaded and --upstream parsed.
type servePlan struct {
	*replay.ServePlan
	caps     []*tape.Capture
	upstream *url.URL // nil when nothing is forwarded, or in forward mode
}

// serveUsage is a usage error of seam serve.
func serveUsage(msg, example string) error {
	return &usageError{cmd: "serve", msg: msg, example: example}
}

// planServe checks the flags against the mode and loads the captures.
func planServe(ctx context.Context, e *env, o *serveOptions, args []string) (*servePlan, error) {
	mode, err := replay.ParseMode(o.mode)
	if err != nil {
		return nil, serveUsage("--mode: "+err.Error(), "seam serve --mode new_episodes --upstream https://api.openai.com captures/")
	}
	rp, err := replay.PlanServe(replay.ServeRequest{Mode: mode, Captures: args, Upstream: o.upstream, Output: o.output, Forward: o.fwd.forward,
		Exists: func(path string) (bool, error) { return captures.Exists(ctx, path) }})
	var pe *replay.PlanError
	if errors.As(err, &pe) {
		return nil, serveUsage(pe.Msg, pe.Example)
	}
	if err != nil {
		return nil, err
	}
	p := &servePlan{ServePlan: rp}
	if rp.Upstream != "" {
		if p.upstream, err = parseUpstream(rp.Upstream); err != nil {
			return nil, serveUsage(err.Error(), rp.Example())
		}
	}
	if len(rp.Replay) > 0 {
		if p.caps, err = captures.LoadAll(ctx, rp.Replay, e.open()); err != nil {
			return nil, err
		}
		if mode == replay.ModeOnce && countExchanges(p.caps) == 0 {
			return nil, fmt.Errorf("%s exists but holds no exchanges; delete it to record it again with --mode once", rp.Replay[0])
		}
	}
	return p, nil
}

func (o *serveOptions) run(ctx context.Context, e *env, fs *flag.FlagSet) error {
	if o.speed < 0 {
		return &usageError{cmd: "serve", msg: "--speed must be 0 or more", example: "seam serve --speed 1 captures/"}
	}
	if err := listenFlag(e, "serve", "--listen", &o.listen); err != nil {
		return err
	}
	red, err := tape.ParseRedaction(o.redact)
	if err != nil {
		return &usageError{cmd: "serve", msg: err.Error(), example: "seam serve --redact json:metadata.user_id captures/"}
	}
	p, err := planServe(ctx, e, o, fs.Args())
	if err != nil {
		return err
	}
	sopts := replay.ServerOptions{Speed: o.speed, Faults: o.faults, Seed: o.seed, Mode: p.Mode, Ignore: o.ignore, Redaction: red}
	if !o.quiet {
		// One line per request answered or refused, as it ends; the path
		// and a miss's reason come from the client: sanitised.
		var mu sync.Mutex
		sopts.Log = func(v replay.Served) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintln(e.stderr, visible.String(v.String()))
		}
	}
	var fwd *forwardSetup
	if o.fwd.forward {
		if fwd, err = o.fwd.setup(e, "serve", o.listen); err != nil {
			return err
		}
		fwd.quiet = o.quiet
	} else if flag := o.fwd.used(); flag != "" {
		return &usageError{cmd: "serve", msg: flag + " applies to --forward", example: "seam serve --forward " + flag + " ... captures/"}
	}
	if (o.otlp.url != "" || o.otlp.content) && !p.RecordOn {
		return &usageError{cmd: "serve", msg: "--otlp sends the exchanges seam serve records, and mode " + string(p.Mode) + " records none", example: "seam serve --mode new_episodes --upstream https://api.openai.com -o captures/ --otlp http://127.0.0.1:4318 captures/"}
	}
	announce := o.announcer(e, p, fwd)
	so := listen.Options{Listen: o.listen, AllowHosts: o.allow, Log: e.stderr, Forward: fwd != nil}
	if !p.Forwards {
		var tally replay.Tally
		err := serveReplay(ctx, o.listen, tally.Wrap(replay.NewServer(p.caps, sopts)), fwd, so, announce)
		if ctx.Err() != nil {
			fmt.Fprintln(e.stderr, tally.String())
		}
		return err
	}
	return o.serveForwarding(ctx, e, p, sopts, fwd, so, announce)
}

// announcer returns what says, once seam serve listens at addr (and, when
// it records, to the capture at path), what it serves and how.
func (o *serveOptions) announcer(e *env, p *servePlan, fwd *forwardSetup) func(addr net.Addr, path string) {
	return func(addr net.Addr, path string) {
		// The first line names the address: scripts and tests read it.
		fmt.Fprintf(e.stderr, "serving %s from %s on http://%s (mode %s, speed %g)\n",
			plural(countExchanges(p.caps), "exchange"), plural(len(p.caps), "capture"), addr, p.Mode, o.speed)
		fmt.Fprintln(e.stderr, p.Describe(upstreamName(p.upstream), path))
		if len(o.faults) > 0 {
			fmt.Fprintf(e.stderr, "injecting faults %s (seed %d)\n", o.faults.String(), o.seed)
		}
		if fwd != nil {
			fmt.Fprintf(e.stderr, "as a forward proxy: HTTPS_PROXY=http://%s HTTP_PROXY=http://%s\n", addr, addr)
			fwd.announce(e.stderr, addr, o.fwd.insecure)
		}
	}
}

// serveForwarding answers from captures until ctx ends, sending the misses
// to a recording proxy like seam record's (for passthrough one whose
// capture goes nowhere).
func (o *serveOptions) serveForwarding(ctx context.Context, e *env, p *servePlan, sopts replay.ServerOptions, fwd *forwardSetup, so listen.Options, announce func(net.Addr, string)) error {
	eng, err := (&engineFlags{}).resolve(nil)
	if err != nil {
		return err
	}
	var count atomic.Int64
	leg := &capture.Endpoint{Listen: o.listen, Upstream: p.upstream, Leg: capture.Whole,
		Handler: func(rec *capture.Recorder) http.Handler {
			sopts.Miss = rec
			return replay.NewServer(p.caps, sopts)
		}}
	if fwd != nil {
		leg.Forward, leg.Transport = fwd.proxy, capture.UpstreamTransport(fwd.upstream)
	}
	create := e.createCapture(p.Record)
	if !p.RecordOn {
		create = func() (io.WriteCloser, string, error) { return captures.Discard(), "", nil }
	}
	tuneGC(e)
	ro := capture.RecordingOptions{
		Create: create, Header: recordHeader(p.upstream, eng, o.fwd.insecure), Endpoints: []*capture.Endpoint{leg},
		Server: so, Redaction: sopts.Redaction, Log: e.stderr,
		OnDone: func(s capture.Summary) {
			count.Add(1)
			if !o.quiet {
				fmt.Fprintln(e.stderr, s.String())
			}
		},
	}
	var live *otlpLive
	if p.RecordOn && p.Record != "-" {
		if live, err = startOTLP(ctx, e, &o.otlp, "serve", p.Record, nil, &ro, e.stderr); err != nil {
			return err
		}
	}
	r, err := capture.StartRecording(ro)
	if err != nil {
		live.stop(e)
		return err
	}
	announce(leg.Addr(), r.Path())
	var runErr error
	select {
	case err := <-r.Errs():
		runErr = fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
		// ctrl-c is how a server stops: not an error.
	}
	// Forwarded streams get the same grace as seam record's.
	stopErr := r.Stop(shutdownGrace, e.stderr)
	if p.RecordOn {
		r.Report(e.stderr, count.Load())
	}
	live.stop(e)
	if stopErr != nil {
		return stopErr
	}
	return runErr
}

// serveReplay answers from captures alone on addr until ctx ends, behind
// a forward proxy when fwd is set.
func serveReplay(ctx context.Context, addr string, h http.Handler, fwd *forwardSetup, so listen.Options, announce func(net.Addr, string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	if fwd != nil {
		f, err := fwd.proxy(h)
		if err != nil {
			ln.Close()
			return err
		}
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
			defer cancel()
			f.Shutdown(ctx)
		}()
		h = f
	}
	srv := listen.NewServer(h, so)
	ln = listen.HintTLS(ln, ln.Addr().String(), fwd != nil, so.Log)
	announce(ln.Addr(), "")
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
		// ctrl-c is how a server stops: not an error.
		return srv.Close()
	}
}

// countExchanges returns how many exchanges caps hold.
func countExchanges(caps []*tape.Capture) int {
	n := 0
	for _, c := range caps {
		n += len(c.Exchanges)
	}
	return n
}

// upstreamName is up as a capture header names it, "" for none.
func upstreamName(up *url.URL) string {
	if up == nil {
		return ""
	}
	return tape.RedactUpstream(up)
}
