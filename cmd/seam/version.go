package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"

	"github.com/seam-dev/seam/internal/buildinfo"
	"github.com/seam-dev/seam/tape"
)

// versionOptions is seam version's: it has no flags.
type versionOptions struct{}

func (versionOptions) flags(*flag.FlagSet) {}

// version is seam's release version, written into every capture header.
const version = "0.1.0-dev"

func (versionOptions) run(_ context.Context, e *env, fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return &usageError{cmd: "version", msg: "takes no arguments", example: "seam version"}
	}
	fmt.Fprintf(e.stdout, "seam %s (capture format v%d, %s)\n", version, tape.Version, runtime.Version())
	if s, why := buildinfo.Revision(); s != "" {
		fmt.Fprintf(e.stdout, "built from %s\n", s)
	} else {
		fmt.Fprintf(e.stdout, "commit unknown: %s\n", why)
	}
	return nil
}
