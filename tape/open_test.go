package tape

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOpenRegular: a regular file opens, through a symbolic link too; a
// named pipe (which os.Open would wait on for a writer) and a directory
// are refused at once with ErrNotRegular, naming what they are.
func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.ndjson")
	if err := os.WriteFile(file, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.ndjson")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, link} {
		f, err := OpenRegular(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		b := make([]byte, 8)
		if n, err := f.Read(b); err != nil || string(b[:n]) != "{}\n" {
			t.Errorf("%s read %q, %v", p, b[:n], err)
		}
		f.Close()
	}
	fifo := filepath.Join(dir, "pipe.ndjson")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	pipeLink := filepath.Join(dir, "pipe-link.ndjson")
	if err := os.Symlink(fifo, pipeLink); err != nil {
		t.Fatal(err)
	}
	for p, kind := range map[string]string{fifo: "a named pipe (FIFO)", pipeLink: "a named pipe (FIFO)", dir: "a directory"} {
		f, err := OpenRegular(p)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), kind) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v, want %v naming %s", p, err, ErrNotRegular, kind)
		}
		if f != nil {
			f.Close()
		}
	}
}
