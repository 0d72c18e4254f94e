package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"
)

// ErrInterrupted is returned by [Run] when the user pressed ctrl-c. Callers
// exit with status 130.
var ErrInterrupted = errors.New("interrupted")

// Options configures the TUI.
type Options struct {
	// Paths are the captures to show, in order: files, or directories that
	// stand for the *.ndjson and *.ndjson.zst files in them (by name, not recursively).
	// Without Follow a directory is read once and must hold a capture.
	Paths []string
	// Names, when set, shows some paths under another name: a capture
	// imported into a temporary file under the recording it came from.
	Names map[string]string
	// Follow tails the files as they grow (a capture being recorded), showing
	// exchanges as they arrive and reloading the open one as its chunks come
	// in. It also lists the directories of Paths again on every tick and
	// opens the capture files that appeared, listed among the directory's
	// others by name; files that left keep what was loaded. A followed
	// directory may be empty: the list then waits for captures in it.
	Follow bool
	// Stream, when set, is a capture read as it arrives (a pipe, or the
	// recorder's output); it is shown after Paths and followed until EOF.
	// StreamName names it on screen.
	Stream     io.Reader
	StreamName string

	// Banner, when set, is a line shown under the list's title, such as
	// where clients should send their requests while seam records.
	Banner string

	// In and Out are the terminal; nil means os.Stdin and os.Stdout.
	In  io.Reader
	Out io.Writer
	// Env is the environment used to detect colour support (NO_COLOR,
	// TERM...); nil means os.Environ().
	Env []string
	// NoColor forces output without colour (bold, underline and
	// strikethrough stay), for NO_COLOR set to any non-empty value.
	NoColor bool
}

// IsTerminal reports whether w is a terminal, for callers deciding between
// the TUI and plain output.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(f.Fd())
}

// Beside runs Run in a goroutine, beside the caller's own work (seam
// record --tui follows the capture it is writing), and returns the channel
// Run's result comes on. The TUI reads what streams wrote: a panic in it
// comes on the channel as an error, so the caller can end its work
// cleanly, rather than ending the process.
func Beside(ctx context.Context, o Options) <-chan error {
	done := make(chan error, 1)
	go func() {
		defer func() {
			if v := recover(); v != nil {
				done <- fmt.Errorf("tui: panic: %v", v)
			}
		}()
		done <- Run(ctx, o)
	}()
	return done
}

// Run opens the captures and runs the TUI until the user quits. It returns
// [ErrInterrupted] for ctrl-c, ctx.Err() when ctx is cancelled, and the
// first error reading a capture (shown on screen when it happened) when the
// user quits after one.
func Run(ctx context.Context, o Options) error {
	m, err := newModel(ctx, o)
	if err != nil {
		return err
	}
	defer m.close()
	in, out := o.In, o.Out
	if in == nil {
		in = os.Stdin
	}
	if out == nil {
		out = os.Stdout
	}
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out)}
	if o.Env != nil {
		opts = append(opts, tea.WithEnvironment(o.Env))
	}
	if o.NoColor {
		opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
	}
	_, err = tea.NewProgram(m, opts...).Run()
	switch {
	case errors.Is(err, tea.ErrInterrupted):
		return ErrInterrupted
	case errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return fmt.Errorf("tui: %w", err)
	}
	// A capture that could not be read whole was shown in part: the exit
	// status says so.
	return m.readErr
}
