package captures

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/record"
)

// TestShipNames: a recording's files are named after its start; a run
// restarted within the same second (a supervisor restarting seam at once)
// names its files after the next free second, so they sort after the last
// run's; a rotated capture's parts are numbered, and the notice says how
// it is split.
func TestShipNames(t *testing.T) {
	dir := t.TempDir() + "/"
	now := time.Date(2026, 11, 27, 9, 30, 0, 0, time.UTC)

	if path := firstFile(t, ShipOptions{Output: dir, Now: now}); path != filepath.Join(dir, "seam-20261127T093000Z.ndjson") {
		t.Errorf("first run's file %s, want seam-20261127T093000Z.ndjson", path)
	}
	again := firstFile(t, ShipOptions{Output: dir, Now: now.Add(300 * time.Millisecond)})
	if again != filepath.Join(dir, "seam-20261127T093001Z.ndjson") {
		t.Errorf("a run restarted within the second writes %s, want seam-20261127T093001Z.ndjson", again)
	}

	var rot record.RecordingOptions
	s, err := Ship(context.Background(), ShipOptions{Output: dir, Now: now, Size: 64 << 20, Every: time.Hour}, &rot)
	if err != nil {
		t.Fatal(err)
	}
	if rot.Create != nil || rot.Rotate.Create == nil || rot.Rotate.Size != 64<<20 || rot.Rotate.Every != time.Hour {
		t.Fatalf("a rotated capture is not set up to rotate: %+v", rot.Rotate)
	}
	for n, want := range map[int]string{1: "seam-20261127T093000Z-000001.ndjson", 2: "seam-20261127T093000Z-000002.ndjson"} {
		w, path, err := rot.Rotate.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		if path != filepath.Join(dir, want) {
			t.Errorf("part %d: %s, want %s", n, path, want)
		}
	}
	said := strings.Join(s.Notices(), "\n")
	if want := "a new capture file every 64 MiB or 1h0m0s (seam-20261127T093000Z-000001.ndjson, seam-20261127T093000Z-000002.ndjson, ...)"; said != want {
		t.Errorf("notice %q, want %q", said, want)
	}
	if s.Object(again) != "" || (*Shipping)(nil).Object(again) != "" {
		t.Error("a capture not uploaded has an object URI")
	}

	// An empty last part is removed, with its marker.
	empty := filepath.Join(dir, "seam-20261127T093000Z-000002.ndjson")
	rot.Rotate.Empty(empty)
	if _, err := os.Stat(empty); !os.IsNotExist(err) {
		t.Errorf("the empty part is still there: %v", err)
	}
}

// firstFile sets up a recording as o says, creates its capture file and
// returns its path.
func firstFile(t *testing.T, o ShipOptions) string {
	t.Helper()
	var ro record.RecordingOptions
	if _, err := Ship(context.Background(), o, &ro); err != nil {
		t.Fatal(err)
	}
	w, path, err := ro.Create()
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	return path
}
