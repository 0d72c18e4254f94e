package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/seam-dev/seam/demo"
)

type demoOptions struct {
	speed  float64
	output string
}

func (o *demoOptions) flags(fs *flag.FlagSet) {
	fs.Float64Var(&o.speed, "speed", 1, "playback speed of the recorded timing (0 sends at once)")
	fs.StringVar(&o.output, "o", "", "`directory` for the demo's captures (default: seam/demo in the user cache directory, replaced each run)")
}

func (o *demoOptions) run(ctx context.Context, e *env, fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return &usageError{cmd: "demo", msg: fmt.Sprintf("unexpected argument %q", fs.Arg(0)), example: "seam demo"}
	}
	if o.speed < 0 {
		return &usageError{cmd: "demo", msg: "--speed must be 0 or more", example: "seam demo --speed 4"}
	}
	return demo.Run(ctx, e.stdout, demo.Options{Speed: o.speed, Dir: o.output, Seam: version, Hint: e.hint})
}
