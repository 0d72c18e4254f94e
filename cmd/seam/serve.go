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
	"sync"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/internal/cli"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/listen"
	"github.com/seam-dev/seam/otlpexport"
	"github.com/seam-dev/seam/record"
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
type faultFlag = replay.Faults

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
type listFlag = cli.List

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
		if mode == replay.ModeOnce && tape.CountExchanges(p.caps) == 0 {
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
	var fwd *record.ForwardPlan
	if o.fwd.forward {
		if fwd, err = o.fwd.setup(e, "serve", o.listen); err != nil {
			return err
		}
		fwd.Quiet = o.quiet
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
func (o *serveOptions) announcer(e *env, p *servePlan, fwd *record.ForwardPlan) func(addr net.Addr, path string) {
	return func(addr net.Addr, path string) {
		// The first line names the address: scripts and tests read it.
		fmt.Fprintf(e.stderr, "serving %s from %s on http://%s (mode %s, speed %g)\n",
			units.Count(tape.CountExchanges(p.caps), "exchange"), units.Count(len(p.caps), "capture"), addr, p.Mode, o.speed)
		fmt.Fprintln(e.stderr, p.Describe(tape.RedactUpstream(p.upstream), path))
		if len(o.faults) > 0 {
			fmt.Fprintf(e.stderr, "injecting faults %s (seed %d)\n", o.faults.String(), o.seed)
		}
		if fwd != nil {
			fmt.Fprintf(e.stderr, "as a forward proxy: HTTPS_PROXY=http://%s HTTP_PROXY=http://%s\n", addr, addr)
			fwd.Announce(e.stderr, addr, o.fwd.insecure)
		}
	}
}

// serveForwarding answers from captures until ctx ends, sending the misses
// to a recording proxy like seam record's (for passthrough one whose
// capture goes nowhere).
func (o *serveOptions) serveForwarding(ctx context.Context, e *env, p *servePlan, sopts replay.ServerOptions, fwd *record.ForwardPlan, so listen.Options, announce func(net.Addr, string)) error {
	eng, err := (&engineFlags{}).resolve(nil)
	if err != nil {
		return err
	}
	leg := replay.MissEndpoint(o.listen, p.upstream, p.caps, sopts)
	if fwd != nil {
		fwd.Serve(leg)
	}
	create := e.createCapture(p.Record)
	if !p.RecordOn {
		create = func() (io.WriteCloser, string, error) { return captures.Discard(), "", nil }
	}
	tuneGC(e)
	ro := record.RecordingOptions{
		Create: create, Header: recordHeader(p.upstream, eng, o.fwd.insecure), Endpoints: []*record.Endpoint{leg},
		Server: so, Redaction: sopts.Redaction, Log: e.stderr,
		OnDone: func(s record.Summary) {
			if !o.quiet {
				fmt.Fprintln(e.stderr, s.String())
			}
		},
	}
	var live *otlpexport.Live
	if p.RecordOn && p.Record != "-" {
		if live, err = startOTLP(ctx, e, &o.otlp, "serve", p.Record, nil, &ro, e.stderr); err != nil {
			return err
		}
	}
	r, err := record.StartRecording(ro)
	if err != nil {
		stopOTLP(e, live)
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
		r.Report(e.stderr)
	}
	stopOTLP(e, live)
	if stopErr != nil {
		return stopErr
	}
	return runErr
}

// serveReplay answers from captures alone on addr until ctx ends, behind
// a forward proxy when fwd is set.
func serveReplay(ctx context.Context, addr string, h http.Handler, fwd *record.ForwardPlan, so listen.Options, announce func(net.Addr, string)) error {
	var wrap func(http.Handler) (http.Handler, func(), error)
	if fwd != nil {
		wrap = func(h http.Handler) (http.Handler, func(), error) {
			f, err := fwd.Proxy(h)
			if err != nil {
				return nil, nil, err
			}
			return f, func() {
				ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
				defer cancel()
				f.Shutdown(ctx)
			}, nil
		}
	}
	return listen.Run(ctx, addr, h, so, fwd != nil, wrap, func(a net.Addr) { announce(a, "") })
}
