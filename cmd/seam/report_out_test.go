package main

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReportOutput: seam report -o writes a new page 0600, as captures
// are (it quotes their prompts); into a named pipe, which stays one (it
// was renamed over, as /dev/null was as root); and refuses a symbolic link
// to a regular file, leaving the file alone.
func TestReportOutput(t *testing.T) {
	capture := filepath.Join(fixturesDir, "anthropic-tool-use.ndjson")
	dir := t.TempDir()

	page := filepath.Join(dir, "page.html")
	if _, err := seamCombinedOutput("report", "-o", page, capture); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(page); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("page mode %v, %v; want 0600", st.Mode(), err)
	}

	fifo := filepath.Join(dir, "pipe.html")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	if out, err := seamCombinedOutput("report", "-o", fifo, capture); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	select {
	case s := <-got:
		if !strings.HasPrefix(s, "<!DOCTYPE html>") {
			t.Errorf("the pipe's reader got %.80q", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the pipe's reader got nothing")
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the pipe was replaced: %v, %v", st.Mode(), err)
	}

	target := filepath.Join(dir, "precious")
	if err := os.WriteFile(target, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.html")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	out, err := seamCombinedOutput("report", "-o", link, capture)
	if err == nil || !strings.Contains(string(out), "symbolic link to a regular file") {
		t.Fatalf("report through a link to a file: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep\n" {
		t.Errorf("the link's target changed: %q", b)
	}
}
