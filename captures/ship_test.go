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

	var one record.RecordingOptions
	if _, err := Ship(context.Background(), ShipOptions{Output: dir, Now: now}, &one); err != nil {
		t.Fatal(err)
	}
	w, path, err := one.Create()
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if want := filepath.Join(dir, "seam-20261127T093000Z.ndjson"); path != want {
		t.Errorf("first run's file %s, want %s", path, want)
	}

	var again record.RecordingOptions
	if _, err := Ship(context.Background(), ShipOptions{Output: dir, Now: now.Add(300 * time.Millisecond)}, &again); err != nil {
		t.Fatal(err)
	}
	w, path, err = again.Create()
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if want := filepath.Join(dir, "seam-20261127T093001Z.ndjson"); path != want {
		t.Errorf("a run restarted within the second writes %s, want %s", path, want)
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
	if s.Object(path) != "" || (*Shipping)(nil).Object(path) != "" {
		t.Error("a capture not uploaded has an object URI")
	}

	// An empty last part is removed, with its marker.
	empty := filepath.Join(dir, "seam-20261127T093000Z-000002.ndjson")
	rot.Rotate.Empty(empty)
	if _, err := os.Stat(empty); !os.IsNotExist(err) {
		t.Errorf("the empty part is still there: %v", err)
	}
}
