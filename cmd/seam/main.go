// Command seam records, shapes, replays and inspects LLM streams.
//
// Run "seam help" for the commands. This package is the only one that reads
// flags, the environment and stdio, installs signal handlers or exits.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/seam-dev/seam/internal/cli"
	"github.com/seam-dev/seam/tui"
)

// interruptBackstop is how long a command may go on after the first
// SIGINT or SIGTERM before seam exits 130 without it: the signal cancels
// the command's context, which every long loop and every read of an input
// checks, so this only ends work blocked where no context reaches (opening
// a named pipe no writer opens, say). seam record's shutdown grace
// (shutdownGrace) fits well inside it.
const interruptBackstop = 10 * time.Second

// signalEcho is how soon after the first signal another one is taken for
// the same: timeout(1) signals its command and then the command's process
// group, so seam gets its SIGTERM twice at once. A person pressing ctrl-c
// twice is slower.
const signalEcho = 200 * time.Millisecond

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go onSignals(sigs, cancel, os.Stderr)
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, self: cli.Self(), terminal: tui.IsTerminal(os.Stdout)}
	err := run(ctx, os.Args[1:], e)
	os.Exit(exitCode(err, e.stderr))
}

// onSignals is seam's handling of SIGINT and SIGTERM, which main has
// sent to sigs: the first cancels the command's context (cancel), so it stops at the next check
// and exits 130 (seam record finishes its capture first); a second one, or
// the first still unanswered after interruptBackstop, ends the process at
// once with status 130 (a signal within signalEcho of the first is the
// first's echo). The handler stays installed for the second signal:
// a signal is never swallowed.
func onSignals(sigs <-chan os.Signal, cancel context.CancelFunc, stderr *os.File) {
	<-sigs
	first := time.Now()
	cancel()
	backstop := time.After(interruptBackstop)
	for {
		select {
		case <-sigs:
			if time.Since(first) < signalEcho {
				continue
			}
			fmt.Fprintln(stderr, "seam: interrupted again: exiting at once")
		case <-backstop:
			fmt.Fprintf(stderr, "seam: interrupted, and still busy %s later: exiting\n", interruptBackstop)
		}
		os.Exit(130)
	}
}
