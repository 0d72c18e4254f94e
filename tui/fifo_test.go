package tui

import (
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// withDeadline runs f and fails the test when it has not returned after
// 10 s (a named pipe opened for reading waits for a writer).
func withDeadline(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s still blocked after 10 s", what)
	}
}

// TestDirectoryFIFO: a named pipe named like a capture in a directory (a
// tarball can carry one) is skipped with a message, at start and when it
// appears in a followed directory; the TUI no longer waits on it forever.
func TestDirectoryFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeCapture(t, filepath.Join(dir, "seam-a.ndjson"), synthCapture(1, 3, false))
	if err := syscall.Mkfifo(filepath.Join(dir, "seam-b.ndjson"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, follow := range []bool{false, true} {
		var m *model
		withDeadline(t, "opening the directory", func() { m = openDirs(t, follow, dir) })
		if got, want := listed(m), rowsOf("seam-a.ndjson", 1); !slices.Equal(got, want) {
			t.Errorf("follow %v: rows %v, want %v", follow, got, want)
		}
		if !m.statusErr || !strings.Contains(m.status, "seam-b.ndjson") || !strings.Contains(m.status, "named pipe") {
			t.Errorf("follow %v: status %q does not say the pipe was skipped", follow, m.status)
		}
	}

	// A pipe appearing in a followed directory.
	live := t.TempDir()
	writeCapture(t, filepath.Join(live, "seam-a.ndjson"), synthCapture(1, 3, false))
	m := openDirs(t, true, live)
	if err := syscall.Mkfifo(filepath.Join(live, "seam-c.ndjson"), 0o600); err != nil {
		t.Fatal(err)
	}
	withDeadline(t, "a followed directory's new pipe", func() { tick(t, m) })
	if got, want := listed(m), rowsOf("seam-a.ndjson", 1); !slices.Equal(got, want) {
		t.Errorf("after the pipe appeared: rows %v, want %v", got, want)
	}
	if !m.statusErr || !strings.Contains(m.status, "named pipe") {
		t.Errorf("status %q does not say the pipe was skipped", m.status)
	}
}
