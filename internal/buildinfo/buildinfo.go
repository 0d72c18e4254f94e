package buildinfo

import "runtime/debug"

// Revision describes the commit the running binary was built from
// ("355df1e5a0b2 2026-11-24T20:46:58Z, modified"), or returns "" and why
// the go command recorded none.
func Revision() (string, string) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", "the binary carries no build information"
	}
	return FromInfo(info)
}

// FromInfo is Revision for the build information info.
func FromInfo(info *debug.BuildInfo) (string, string) {
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
		return describe(rev, at, modified), ""
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

// describe is a revision's short form: twelve hex digits, its time, and
// whether the tree was modified.
func describe(rev, at string, modified bool) string {
	s := rev[:min(len(rev), 12)]
	if at != "" {
		s += " " + at
	}
	if modified {
		s += ", modified"
	}
	return s
}
