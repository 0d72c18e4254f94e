package captures

import (
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
