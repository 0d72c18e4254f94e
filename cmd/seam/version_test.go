package main

import (
	"strings"
	"testing"
)

func TestDescribeRevision(t *testing.T) {
	for _, tc := range []struct {
		rev, at  string
		modified bool
		want     string
	}{
		{"", "", false, ""},
		{"355df1ef0aa9b744a5377f99a7c828df20bb99b0", "2026-11-24T20:27:59Z", false, "355df1ef0aa9 2026-11-24T20:27:59Z"},
		{"355df1ef0aa9b744a5377f99a7c828df20bb99b0", "2026-11-24T20:27:59Z", true, "355df1ef0aa9 2026-11-24T20:27:59Z, modified"},
		{"abc", "", true, "abc, modified"},
	} {
		if got := describeRevision(tc.rev, tc.at, tc.modified); got != tc.want {
			t.Errorf("describeRevision(%q, %q, %v) = %q, want %q", tc.rev, tc.at, tc.modified, got, tc.want)
		}
	}
}

// TestVersionSaysWhyNoCommit: seam version run from a test binary (which,
// as go run, records no commit) says why instead of leaving it out.
func TestVersionSaysWhyNoCommit(t *testing.T) {
	out, err := seamOutput("version")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "commit unknown: go run and go test record none") {
		t.Errorf("seam version under go test:\n%s", out)
	}
	for mv, off := range map[string]bool{"v0.2.0": false, "(devel)": true} {
		if got := noRevisionReason(mv, off); got == "" || (off && !strings.Contains(got, "-buildvcs=false")) || (!off && !strings.Contains(got, mv)) {
			t.Errorf("noRevisionReason(%q, %v) = %q", mv, off, got)
		}
	}
}
