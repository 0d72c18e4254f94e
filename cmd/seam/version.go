package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"

	"github.com/seam-dev/seam/tape"
)

// version is seam's release version, written into every capture header.
const version = "0.1.0-dev"

func versionCommand() *command {
	return &command{
		name:    "version",
		summary: "print seam's version and the capture format it writes",
		usage:   "seam version",
		help:    "Prints the seam version, the capture format version and the Go toolchain.",
		example: "seam version",
		run: func(_ context.Context, e *env, fs *flag.FlagSet, _ any) error {
			if fs.NArg() > 0 {
				return &usageError{cmd: "version", msg: "takes no arguments", example: "seam version"}
			}
			fmt.Fprintf(e.stdout, "seam %s (capture format v%d, %s)\n", version, tape.Version, runtime.Version())
			return nil
		},
	}
}
