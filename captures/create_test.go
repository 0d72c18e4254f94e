package captures

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCreateMissingParent: -o into a directory that does not exist makes
// it (./captures on a first run), but a path two missing levels deep is a
// typo more often than a tree to create, and is refused saying so.
func TestCreateMissingParent(t *testing.T) {
	dir := t.TempDir()
	f, path, err := Create(filepath.Join(dir, "new")+"/", nil, time.Unix(0, 0))
	if err != nil {
		t.Fatalf("one missing level: %v", err)
	}
	f.Close()
	if filepath.Dir(path) != filepath.Join(dir, "new") {
		t.Errorf("path %s", path)
	}
	_, _, err = Create(filepath.Join(dir, "typo", "deeper", "x.ndjson"), nil, time.Unix(0, 0))
	if err == nil || !strings.Contains(err.Error(), "does not exist either") {
		t.Errorf("two missing levels: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "typo")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused path was created in part: %v", err)
	}
}

// TestSave: a capture saved to a file loads back with its exchanges and
// its header; "-" writes it to stdout; an existing
// file is never overwritten.
func TestSave(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src.ndjson")
	write(t, src, capture(time.Now(), 1, 2))
	c, err := Load(context.Background(), src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "dst.ndjson")
	if path, err := Save(context.Background(), dst, nil, c, "9.9"); err != nil || path != dst {
		t.Fatalf("Save: %s, %v", path, err)
	}
	back, err := Load(context.Background(), dst, Options{})
	if err != nil || len(back.Exchanges) != 2 || back.Header.Seam != "test" {
		t.Fatalf("loaded back %d exchanges by %q: %v", len(back.Exchanges), back.Header.Seam, err)
	}
	var out bytes.Buffer
	if path, err := Save(context.Background(), "-", &out, c, "9.9"); err != nil || path != "stdout" || !bytes.Contains(out.Bytes(), []byte(`"type":"capture"`)) {
		t.Errorf("stdout: %s, %v, %d bytes", path, err, out.Len())
	}
	if _, err := Save(context.Background(), dst, nil, c, "9.9"); err == nil {
		t.Error("an existing capture was overwritten")
	}
}
