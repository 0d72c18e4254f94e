package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/seam-dev/seam/replay"
)

type serveOptions struct {
	listen string
	speed  float64
}

func serveCommand() *command {
	return &command{
		name:    "serve",
		summary: "serve captures as a mock upstream, at recorded timing",
		usage:   "seam serve [--listen ADDR] [--speed N] CAPTURE|DIR...",
		help: `
Answers OpenAI- and Anthropic-style requests from recorded exchanges: a
request with the same method, path and JSON body as a recorded one gets that
exchange's upstream response, chunk by chunk with the recorded boundaries and
timing (scaled by --speed; 0 sends at once). A request that matches nothing
gets a 404 whose JSON error names the closest exchange and why it did not
match. Point any proxy or client at it to replay a capture against it.`,
		example: "seam serve --speed 0 captures/",
		flags: func(fs *flag.FlagSet) any {
			o := &serveOptions{}
			fs.StringVar(&o.listen, "listen", "127.0.0.1:8081", "`address` to listen on")
			fs.Float64Var(&o.speed, "speed", 1, "playback speed of the recorded timing (0 sends at once)")
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
			srv := &http.Server{Handler: replay.NewServer(caps, replay.ServerOptions{Speed: o.speed}), ReadHeaderTimeout: 30 * time.Second}
			fmt.Fprintf(e.stderr, "serving %d exchanges from %d captures on http://%s (speed %g)\n", countExchanges(caps), len(caps), ln.Addr(), o.speed)
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
