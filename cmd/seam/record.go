package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/internal/cli"
	"github.com/seam-dev/seam/listen"
	"github.com/seam-dev/seam/otlpexport"
	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/shape"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/tui"
)

// shutdownGrace is how long in-flight streams may run on after ctrl-c.
const shutdownGrace = 2 * time.Second

type recordOptions struct {
	upstream string
	listen   string
	proxy    string
	back     string
	output   string
	fsync    bool
	buffer   cli.Size
	quiet    bool
	tui      bool
	allow    listFlag
	redact   listFlag
	engine   engineFlags
	fwd      forwardFlags
	otlp     otlpFlags
	ship     shipFlags

	// live is the OTLP export of the recording; nil when off.
	live *otlpexport.Live
}

func (o *recordOptions) flags(fs *flag.FlagSet) {
	fs.StringVar(&o.upstream, "upstream", "", "upstream base `URL` every request is forwarded to (required)")
	fs.StringVar(&o.listen, "listen", "127.0.0.1:8080", "`address` to listen on (a port alone: 127.0.0.1:PORT)")
	fs.StringVar(&o.proxy, "proxy", "", "record a proxy under test from both sides: its base `URL` (see above)")
	fs.StringVar(&o.back, "back", "127.0.0.1:8089", "with --proxy, the `address` the proxy's upstream requests come to")
	fs.StringVar(&o.output, "o", "", "capture `file` or directory (default ./captures/seam-<UTC time>.ndjson; a name ending in .zst is zstd-compressed; - for stdout)")
	fs.BoolVar(&o.fsync, "fsync", false, "fsync the capture after every write (durable, slower)")
	fs.Var(&o.buffer, "buffer", "hold up to `SIZE` of capture lines waiting for the disk (default 16MiB; raise it when seam says recording fell behind)")
	fs.BoolVar(&o.quiet, "q", false, "do not print a summary line per exchange")
	fs.BoolVar(&o.tui, "tui", false, "watch exchanges arrive in the terminal UI (q stops recording)")
	fs.Var(&o.redact, "redact", "also redact `pattern`: header:NAME, json:PATH (a.b, * any key, ** any depth) or re:REGEXP (repeatable; see Security in the README)")
	fs.Var(&o.allow, "allow-host", "also answer requests whose Host is `name` (repeatable; * for any): see Security in the README")
	o.engine.register(fs, shape.DefaultProfile)
	o.fwd.register(fs)
	o.otlp.register(fs)
	o.ship.register(fs)
}

func (o *recordOptions) run(ctx context.Context, e *env, fs *flag.FlagSet) error {
	ex := "seam record --upstream https://api.openai.com"
	if fs.NArg() > 0 {
		return &usageError{cmd: "record", msg: fmt.Sprintf("unexpected argument %q", fs.Arg(0)), example: ex}
	}
	if err := listenFlag(e, "record", "--listen", &o.listen); err != nil {
		return err
	}
	if o.proxy != "" {
		if err := listenFlag(e, "record", "--back", &o.back); err != nil {
			return err
		}
	}
	if o.fwd.forward {
		return runRecordForward(ctx, e, o)
	}
	if flag := o.fwd.used(); flag != "" {
		return &usageError{cmd: "record", msg: flag + " applies to --forward", example: "seam record --forward " + flag + " ..."}
	}
	if o.upstream == "" {
		return &usageError{cmd: "record", msg: "--upstream is required (or --forward, for clients that take a proxy)", example: ex}
	}
	up, err := parseUpstream(o.upstream)
	if err != nil {
		return &usageError{cmd: "record", msg: err.Error(), example: ex}
	}
	eng, err := o.engine.resolve(nil)
	if err != nil {
		return &usageError{cmd: "record", msg: err.Error(), example: "seam record --upstream URL --profile obsidian-xml --set holdback=on"}
	}
	cfg, err := o.config(e, "--upstream URL")
	if err != nil {
		return err
	}
	proxy, err := o.proxyUnderTest(&eng)
	if err != nil {
		return err
	}
	legs := o.listeners(up, proxy, &cfg)
	cfg.Header = recordHeader(up, eng, false)
	tuneGC(e)
	r, err := o.start(cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "listening on http://%s → %s\n", legs[0].Addr(), tape.RedactUpstream(legs[0].Upstream))
	if proxy != nil {
		fmt.Fprintf(e.stderr, "listening on http://%s → %s for the proxy under test: set its upstream base URL to http://%s\n",
			legs[1].Addr(), tape.RedactUpstream(up), legs[1].Addr())
	}
	fmt.Fprintf(e.stderr, "capturing to %s (engine %s)\n", r.Path(), shape.Summary(eng))
	banner := fmt.Sprintf("recording: point clients at http://%s (→ %s)", legs[0].Addr(), tape.RedactUpstream(legs[0].Upstream))
	if proxy != nil {
		banner = fmt.Sprintf("recording: clients → http://%s → proxy under test → http://%s (its upstream) → %s",
			legs[0].Addr(), legs[1].Addr(), tape.RedactUpstream(up))
	}
	return runRecording(ctx, e, o, r, banner)
}

// proxyUnderTest reads --proxy, the proxy a sandwich records from both
// sides (nil without it), which is then the engine eng names.
func (o *recordOptions) proxyUnderTest(eng *tape.Engine) (*url.URL, error) {
	if o.proxy == "" {
		return nil, nil
	}
	const sw = "seam record --upstream https://api.openai.com --proxy http://127.0.0.1:3000"
	proxy, err := parseUpstream(o.proxy)
	if err != nil {
		return nil, &usageError{cmd: "record", msg: strings.Replace(err.Error(), "--upstream", "--proxy", 1), example: sw}
	}
	if o.engine.profile != "" || len(o.engine.set) > 0 {
		return nil, &usageError{cmd: "record", msg: "--proxy records a proxy under test, which is the engine: --profile and --set do not apply", example: sw}
	}
	*eng = tape.Engine{Profile: shape.ProfileExternal}
	return proxy, nil
}

// listeners sets cfg's listeners and returns them: one for clients, and
// in a sandwich (proxy set) a second one for the proxy under test to send
// its upstream requests to, with the capture's note saying so.
func (o *recordOptions) listeners(up, proxy *url.URL, cfg *record.RecordingOptions) []*record.Endpoint {
	if proxy == nil {
		cfg.Endpoints = []*record.Endpoint{{Listen: o.listen, Upstream: up, Leg: record.Whole}}
		return cfg.Endpoints
	}
	cfg.Endpoints = []*record.Endpoint{
		{Listen: o.listen, Upstream: proxy, Leg: record.Front},
		{Listen: o.back, Upstream: up, Leg: record.Back},
	}
	cfg.Note = func(legs []*record.Endpoint) string {
		return fmt.Sprintf("sandwich: clients → seam http://%s → proxy under test %s → seam http://%s → %s",
			legs[0].Addr(), tape.RedactUpstream(proxy), legs[1].Addr(), tape.RedactUpstream(up))
	}
	return cfg.Endpoints
}

// runRecordForward runs seam record --forward.
func runRecordForward(ctx context.Context, e *env, o *recordOptions) error {
	ex := "seam record --forward"
	switch {
	case o.upstream != "":
		return &usageError{cmd: "record", msg: "--forward sends each request to the host it names, so --upstream does not apply", example: ex}
	case o.proxy != "":
		return &usageError{cmd: "record", msg: "--forward cannot record a proxy under test (--proxy); run seam record --upstream around it", example: ex}
	}
	eng, err := o.engine.resolve(nil)
	if err != nil {
		return &usageError{cmd: "record", msg: err.Error(), example: "seam record --forward --profile obsidian-xml"}
	}
	cfg, err := o.config(e, "--forward")
	if err != nil {
		return err
	}
	fwd, err := o.fwd.setup(e, "record", o.listen)
	if err != nil {
		return err
	}
	fwd.Quiet = o.quiet || o.tui
	leg := &record.Endpoint{Listen: o.listen, Leg: record.Whole}
	fwd.Serve(leg)
	cfg.Header, cfg.Endpoints = recordHeader(nil, eng, o.fwd.insecure), []*record.Endpoint{leg}
	cfg.Note = func([]*record.Endpoint) string { return fwd.Note() }
	tuneGC(e)
	r, err := o.start(cfg)
	if err != nil {
		return err
	}
	addr := leg.Addr()
	fmt.Fprintf(e.stderr, "listening on http://%s as a forward proxy: HTTPS_PROXY=http://%s HTTP_PROXY=http://%s\n", addr, addr, addr)
	fwd.Announce(e.stderr, addr, o.fwd.insecure)
	fmt.Fprintf(e.stderr, "capturing to %s (engine %s)\n", r.Path(), shape.Summary(eng))
	return runRecording(ctx, e, o, r, fmt.Sprintf("recording: a forward proxy, HTTPS_PROXY=http://%s", addr))
}

// config is what every seam record run starts from, --forward or not
// (mode, "--upstream URL" or "--forward", is for the examples of usage
// errors): where the capture goes, the --redact patterns, the Host check
// with --allow-host, where errors are said, and the line per exchange
// unless -q or --tui.
func (o *recordOptions) config(e *env, mode string) (record.RecordingOptions, error) {
	red, err := tape.ParseRedaction(o.redact)
	if err != nil {
		return record.RecordingOptions{}, &usageError{cmd: "record", msg: err.Error(), example: "seam record " + mode + " --redact json:metadata.user_id --redact 're:acct-[0-9]+'"}
	}
	if o.tui && (o.output == "-" || !tui.IsTerminal(e.stdout)) {
		return record.RecordingOptions{}, &usageError{cmd: "record", msg: "--tui needs a terminal on stdout and a capture file (not -o -)", example: "seam record --tui " + mode}
	}
	cfg := record.RecordingOptions{
		Create: e.createCapture(o.output), Fsync: o.fsync, Buffer: int(o.buffer),
		Server: listen.Options{AllowHosts: o.allow, Log: e.stderr}, Redaction: red, Log: e.stderr,
		OnDone: func(s record.Summary) {
			if !o.quiet && !o.tui {
				fmt.Fprintln(e.stderr, s.String())
			}
		},
	}
	if o.tui {
		cfg.Server.Log = nil // the TUI has the terminal
	}
	if err := o.ship.apply(e, o.output, &cfg); err != nil {
		return record.RecordingOptions{}, err
	}
	otlpLog := e.stderr
	if o.tui {
		otlpLog = nil // the TUI has the terminal; the summary says it after
	}
	live, err := startOTLP(context.Background(), e, &o.otlp, "record", o.output, o.ship.captureURI, &cfg, otlpLog)
	if err != nil {
		return record.RecordingOptions{}, err
	}
	o.live = live
	return cfg, nil
}

// start starts the recording cfg sets up; when it cannot (an address in
// use), the OTLP export started for it ends too, sending nothing.
func (o *recordOptions) start(cfg record.RecordingOptions) (*record.Recording, error) {
	r, err := record.StartRecording(cfg)
	if err != nil {
		o.live.Close(otlpClose)
	}
	return r, err
}

// runRecording runs a started recording until ctrl-c, a server failure or
// the TUI quitting, then stops it. banner says where clients go, for the
// TUI's header.
func runRecording(ctx context.Context, e *env, o *recordOptions, r *record.Recording, banner string) error {
	o.ship.announce(e)
	path := r.Path()
	if r.Rotated() {
		path = filepath.Dir(path) // the TUI picks up each new file there
	}
	var runErr error
	var tuiDone <-chan error // nil without --tui: never ready
	tuiCtx, stopTUI := context.WithCancel(ctx)
	defer stopTUI()
	if o.tui {
		// The TUI follows the capture as it grows; quitting it, or a
		// panic in it, stops recording.
		tuiDone = tui.Beside(tuiCtx, tui.Options{Paths: []string{path}, Follow: true, In: e.stdin, Out: e.stdout, NoColor: e.getenv("NO_COLOR") != "",
			Banner: banner + " · q stops · capture " + path})
	}
	select {
	case err := <-r.Errs():
		runErr = fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
		// ctrl-c is how a recording ends: not an error.
	case err := <-tuiDone:
		tuiDone = nil
		if errors.Is(err, tui.ErrInterrupted) {
			err = nil // ctrl-c in the TUI ends the recording too
		}
		runErr = err
	}
	if tuiDone != nil {
		stopTUI() // give the terminal back before printing
		<-tuiDone
	}
	stopErr := r.Stop(shutdownGrace, e.stderr)
	r.Report(e.stderr)
	stopOTLP(e, o.live)
	stopErr = errors.Join(stopErr, o.ship.finish(e))
	if stopErr != nil {
		return stopErr // a capture that lost exchanges or uploads fails the run, interrupted or not
	}
	return runErr
}

// parseUpstream checks that raw is an absolute http(s) URL.
func parseUpstream(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("--upstream %q: %v", raw, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--upstream %q: want an absolute http or https URL such as https://api.openai.com", raw)
	}
	return u, nil
}

// recordHeader is the header of a recording's capture: seam's version,
// the engine, the upstream (redacted; nil in forward mode) and whether
// upstream certificates went unverified.
func recordHeader(up *url.URL, eng tape.Engine, insecure bool) tape.Header {
	h := tape.Header{Seam: version, Engine: eng, Insecure: insecure}
	if up != nil {
		h.Upstream = tape.RedactUpstream(up)
	}
	return h
}

// createCapture returns what opens the capture spec names (see
// captures.Create) when a recording starts.
func (e *env) createCapture(spec string) func() (io.WriteCloser, string, error) {
	return func() (io.WriteCloser, string, error) { return captures.Create(spec, e.stdout, time.Now()) }
}
