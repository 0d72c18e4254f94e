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

func demoCommand() *command {
	return &command{
		name:    "demo",
		summary: "record embedded real streams through the proxy, offline, and summarise them",
		usage:   "seam demo [--speed N] [-o DIR]",
		help:    demoHelp,
		example: "seam demo --speed 4",
		new:     func() runner { return &demoOptions{} },
	}
}

// demoHelp is the text of "seam help demo".
const demoHelp = `
Runs seam end to end with no network and no API key. A mock upstream on
127.0.0.1 plays real recorded streams (OpenAI Chat Completions with parallel
tool calls, Anthropic Messages with tool use, OpenAI Responses) at their
recorded timing; a demo client sends each recorded request through the real
recording proxy on 127.0.0.1; the proxy writes a capture file. seam then
prints a summary per exchange, checks that the capture decodes and inspects it.

Then the incident that started seam: the real token stream of an Obsidian
Copilot tool call goes through the Obsidian XML engine as the shaping proxy
ran it before its fix (holdback=off). inspect finds "</use_tool<use_tool>"
in the assembled message, which no single delta contains, and names the
client event where it was born; a replay with the fix switched on
(holdback=on) shows it gone, as a diff.`

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
