package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/seam-dev/seam/tape"
)

// versionOptions is seam version's: it has no flags.
type versionOptions struct{}

func (versionOptions) flags(*flag.FlagSet) {}

// version is seam's release version, written into every capture header.
const version = "0.1.0-dev"

func versionCommand() *command {
	return &command{
		name:    "version",
		summary: "print seam's version and the capture format it writes",
		usage:   "seam version",
		help:    versionHelp,
		example: "seam version",
		new:     func() runner { return versionOptions{} },
	}
}

// versionHelp is the text of "seam help version".
const versionHelp = `
Prints the seam version, the capture format version, the Go toolchain and,
when the binary was built from a git checkout (go install ./cmd/seam, go
build, go run), the commit it was built from and whether the working tree
had uncommitted changes ("modified"). Include it in a bug report.`

func (versionOptions) run(_ context.Context, e *env, fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return &usageError{cmd: "version", msg: "takes no arguments", example: "seam version"}
	}
	fmt.Fprintf(e.stdout, "seam %s (capture format v%d, %s)\n", version, tape.Version, runtime.Version())
	if s, why := buildRevision(); s != "" {
		fmt.Fprintf(e.stdout, "built from %s\n", s)
	} else {
		fmt.Fprintf(e.stdout, "commit unknown: %s\n", why)
	}
	return nil
}

// buildRevision describes the commit the binary was built from, as the go
// command recorded it ("355df1e5a0b2 2026-11-24T20:46:58Z, modified"), or
// "" and why it recorded none.
func buildRevision() (string, string) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", "the binary carries no build information"
	}
	var rev, at string
	modified, off := false, false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		case "-buildvcs":
			off = s.Value == "false"
		}
	}
	if rev != "" {
		return describeRevision(rev, at, modified), ""
	}
	return "", noRevisionReason(info.Main.Version, off)
}

// noRevisionReason says why a build recorded no commit: built with
// -buildvcs=false, installed as a module version (mainVersion), or built
// by go run or go test, or outside a git checkout.
func noRevisionReason(mainVersion string, buildvcsOff bool) string {
	switch {
	case buildvcsOff:
		return "built with -buildvcs=false"
	case mainVersion != "" && mainVersion != "(devel)":
		return "installed as module version " + mainVersion + ", which names the source"
	default:
		return "go run and go test record none, nor does a build outside a git checkout or with -buildvcs=false (see go env GOFLAGS); go build ./cmd/seam in a clone records it"
	}
}

func describeRevision(rev, at string, modified bool) string {
	if rev == "" {
		return ""
	}
	s := rev[:min(len(rev), 12)]
	if at != "" {
		s += " " + at
	}
	if modified {
		s += ", modified"
	}
	return s
}
