// Command seam records, shapes, replays and inspects LLM streams.
//
// Run "seam help" for the commands. This package is the only one that reads
// flags, the environment and stdio, installs signal handlers or exits.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}
	err := run(ctx, os.Args[1:], e)
	stop()
	os.Exit(exitCode(err, e.stderr))
}
