package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/tui"
)

type tuiOptions struct {
	follow bool
}

func (o *tuiOptions) flags(fs *flag.FlagSet) {
	fs.BoolVar(&o.follow, "follow", false, "tail the captures as they grow and pick up new ones in the directories given")
}

func (o *tuiOptions) run(ctx context.Context, e *env, fs *flag.FlagSet) error {
	if fs.NArg() == 0 {
		return &usageError{cmd: "tui", msg: "no capture given", example: "seam tui captures/"}
	}
	for _, a := range fs.Args() {
		if a == "-" {
			return &usageError{cmd: "tui", msg: `the TUI reads its keys from the terminal, so it cannot read a capture from stdin ("-"); save it to a file first`, example: "seam tui capture.ndjson"}
		}
	}
	if !tui.IsTerminal(e.stdout) {
		return fmt.Errorf("tui: stdout is not a terminal; for a text report run: %s", e.hint(append([]string{"inspect"}, fs.Args()...)...))
	}
	if o.follow && slices.ContainsFunc(fs.Args(), captures.IsRemote) {
		return &usageError{cmd: "tui", msg: "--follow tails local files: an s3:// capture is read once", example: "seam tui s3://bucket/prefix"}
	}
	paths, names, cleanup, err := tuiInputs(ctx, e, fs.Args())
	defer cleanup()
	if err != nil {
		return err
	}
	// The TUI expands directories itself: with --follow it lists them again
	// on every tick, so captures written into them later show up.
	err = tui.Run(ctx, tui.Options{
		Paths:   paths,
		Names:   names,
		Follow:  o.follow,
		In:      e.stdin,
		Out:     e.stdout,
		NoColor: e.getenv("NO_COLOR") != "",
	})
	if errors.Is(err, tui.ErrInterrupted) {
		return errInterrupted
	}
	return err
}

// tuiInputs returns what the TUI reads for args (captures.Local).
func tuiInputs(ctx context.Context, e *env, args []string) (paths []string, names map[string]string, cleanup func(), err error) {
	return captures.Local(ctx, args, e.open(), version)
}
