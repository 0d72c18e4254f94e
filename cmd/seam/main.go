// Command seam records, shapes, replays and inspects LLM streams.
//
// Run "seam help" for the commands. This package is the only one that reads
// flags, the environment and stdio, installs signal handlers or exits.
package main

import (
	"context"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, self: selfCommand()}
	err := run(ctx, os.Args[1:], e)
	stop()
	os.Exit(exitCode(err, e.stderr))
}

// selfCommand returns how a user runs this seam again: "seam" when that
// name on PATH is this executable, "go run ./cmd/seam" when go run built it
// (in a go-build directory), else the executable's absolute path.
func selfCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return "seam"
	}
	exe, _ = filepath.EvalSymlinks(exe)
	if p, err := exec.LookPath("seam"); err == nil {
		if p, err = filepath.EvalSymlinks(p); err == nil && p == exe {
			return "seam"
		}
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "go run ./cmd/seam"
	}
	return shellQuote(exe)
}
