// Package goldenfile compares what a test generates with a file committed
// beside it, and regenerates the file on request.
//
// Set SEAM_GEN=1 to regenerate: a file whose content changes is written and
// the test fails with "regenerated: review the diff", so a regeneration is
// never mistaken for a passing run; an unchanged file passes. Any other
// value of SEAM_GEN is refused, so a typo cannot rewrite goldens quietly.
package goldenfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Env is the environment variable that asks for regeneration.
const Env = "SEAM_GEN"

// Regenerating reports whether SEAM_GEN=1 asks for regeneration; it fails
// the test on any other non-empty value.
func Regenerating(t testing.TB) bool {
	t.Helper()
	switch v := os.Getenv(Env); v {
	case "":
		return false
	case "1":
		return true
	default:
		t.Fatalf("%s=%q: only %s=1 regenerates committed files", Env, v, Env)
		return false
	}
}

// Check compares got with the file at path. With SEAM_GEN=1 it writes got
// to path when they differ and fails the test, asking for a review; how is
// the command that regenerates the file, for the messages.
func Check(t testing.TB, path string, got []byte, how string) {
	t.Helper()
	want, err := os.ReadFile(path)
	if Regenerating(t) {
		if err == nil && bytes.Equal(want, got) {
			return
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Errorf("%s regenerated: review the diff (git diff -- %s), then run the tests without %s", path, path, Env)
		return
	}
	if err != nil {
		t.Errorf("%v (regenerate with %s)", err, how)
		return
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from what the test generates: %s; if the change is intended, regenerate with %s", path, FirstDifference(want, got), how)
	}
}

// FirstDifference describes where two byte slices first differ: the line,
// the byte, and each version around it.
func FirstDifference(want, got []byte) string {
	n := 0
	for n < len(want) && n < len(got) && want[n] == got[n] {
		n++
	}
	line := bytes.Count(want[:n], []byte{'\n'}) + 1
	from := max(bytes.LastIndexByte(want[:n], '\n')+1, n-40)
	return fmt.Sprintf("line %d, byte %d: committed %q, generated %q (%d and %d bytes in all)",
		line, n, excerpt(want, from), excerpt(got, from), len(want), len(got))
}

// excerpt returns up to 80 bytes of b from start, to the end of the line.
func excerpt(b []byte, start int) []byte {
	if start >= len(b) {
		return nil
	}
	b = b[start:]
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	if len(b) > 80 {
		b = b[:80]
	}
	return b
}
