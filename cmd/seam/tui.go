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

func tuiCommand() *command {
	return &command{
		name:    "tui",
		summary: "browse captures in a terminal UI: diffs, timeline, findings, engine switches",
		usage:   "seam tui [--follow] CAPTURE|DIR...",
		help:    tuiHelp,
		example: "seam tui captures/",
		new:     func() runner { return &tuiOptions{} },
	}
}

// tuiHelp is the text of "seam help tui".
const tuiHelp = `
Opens the captures (a directory stands for the *.ndjson and *.ndjson.zst files in it) in a
terminal UI: every exchange with its status, timing and a findings badge;
for each exchange the diffs inspect computes (streamed vs final, upstream vs
client, recorded vs replayed), the timeline of chunks and events of both
sides, the findings, the request and the raw bytes. "e" opens the engine's
switches: toggling one replays the exchange in place, so a fix can be seen
taking effect. Press "?" for every key.

Large captures open at once: exchanges are indexed by a byte scan and each
one is decoded when opened. With --follow the files are tailed as they grow
(a capture being recorded) and the open exchange streams in live, and each
directory given is listed again four times a second (not its
subdirectories): a capture that appears in it, such as the file a new run of
"seam record -o DIR/" writes, is opened and its exchanges join the list. A
followed directory may be empty at start; the TUI then waits for captures
in it. Without --follow a directory is read once, and must hold captures.

The TUI needs a terminal on stdout; for a plain-text report use "seam
inspect". NO_COLOR (any non-empty value) turns colour off.`

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
