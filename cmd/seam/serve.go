package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/seam-dev/seam/replay"
)

type serveOptions struct {
	listen string
	speed  float64
	faults faultFlag
	seed   uint64
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

func serveCommand() *command {
	return &command{
		name:    "serve",
		summary: "serve captures as a mock upstream, at recorded timing",
		usage:   "seam serve [--listen ADDR] [--speed N] [--fault F]... CAPTURE|DIR...",
		help: `
Answers OpenAI- and Anthropic-style requests from recorded exchanges: a
request with the same method, path and JSON body as a recorded one gets that
exchange's upstream response, chunk by chunk with the recorded boundaries and
timing (scaled by --speed; 0 sends at once). A request that matches nothing
gets a 404 whose JSON error names the closest exchange and why it did not
match. Point any proxy or client at it to replay a capture against it.

--fault injects a departure from the recording into every response, to see
how a client or proxy copes; repeat it to combine faults, applied in order.
Faults that pick a position (which event, where to split) draw from --seed,
so the same seed gives the same bytes. Faults: ` + strings.Join(replay.FaultKinds(), ", ") + `.`,
		example: "seam serve --speed 0 captures/",
		flags: func(fs *flag.FlagSet) any {
			o := &serveOptions{}
			fs.StringVar(&o.listen, "listen", "127.0.0.1:8081", "`address` to listen on")
			fs.Float64Var(&o.speed, "speed", 1, "playback speed of the recorded timing (0 sends at once)")
			fs.Var(&o.faults, "fault", "inject `fault` into every response, e.g. split-rune, drop-delta=3, status=429:2 (repeatable)")
			fs.Uint64Var(&o.seed, "seed", 1, "`seed` for the positions faults pick")
			return o
		},
		run: func(ctx context.Context, e *env, fs *flag.FlagSet, opts any) error {
			o := opts.(*serveOptions)
			if fs.NArg() == 0 {
				return &usageError{cmd: "serve", msg: "no capture given", example: "seam serve captures/"}
			}
			if o.speed < 0 {
				return &usageError{cmd: "serve", msg: "--speed must be 0 or more", example: "seam serve --speed 1 captures/"}
			}
			caps, err := loadCaptures(e, fs.Args())
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", o.listen)
			if err != nil {
				return fmt.Errorf("listen: %w", err)
			}
			srv := &http.Server{Handler: replay.NewServer(caps, replay.ServerOptions{Speed: o.speed, Faults: o.faults, Seed: o.seed}), ReadHeaderTimeout: 30 * time.Second}
			fmt.Fprintf(e.stderr, "serving %d exchanges from %d captures on http://%s (speed %g)\n", countExchanges(caps), len(caps), ln.Addr(), o.speed)
			if len(o.faults) > 0 {
				fmt.Fprintf(e.stderr, "injecting faults %s (seed %d)\n", o.faults.String(), o.seed)
			}
			done := make(chan error, 1)
			go func() { done <- srv.Serve(ln) }()
			select {
			case err := <-done:
				return fmt.Errorf("serve: %w", err)
			case <-ctx.Done():
				srv.Close()
				return errInterrupted
			}
		},
	}
}
