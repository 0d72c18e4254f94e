package filelock

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestHeld(t *testing.T) {
	if !supported {
		t.Skip("no flock on " + runtime.GOOS)
	}
	path := filepath.Join(t.TempDir(), "c.ndjson")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if Held(path) {
		t.Fatal("held before Lock")
	}
	if !Lock(f) {
		t.Fatal("Lock failed")
	}
	if !Held(path) {
		t.Fatal("not held while the writer has it open")
	}
	f.Close()
	if Held(path) {
		t.Fatal("held after the writer closed it")
	}
	if Held(filepath.Join(t.TempDir(), "missing")) {
		t.Fatal("a missing file is held")
	}
}
