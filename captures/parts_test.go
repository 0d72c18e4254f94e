package captures

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestPartPath(t *testing.T) {
	start := time.Date(2026, 11, 27, 9, 30, 0, 0, time.FixedZone("CET", 3600))
	dir := t.TempDir()
	for _, tc := range []struct {
		spec, ext string
		n         int
		want      string
	}{
		{"", ".ndjson", 1, "captures/seam-20261127T083000Z-000001.ndjson"},
		{"out/", ".ndjson.zst", 12, "out/seam-20261127T083000Z-000012.ndjson.zst"},
		{dir, ".ndjson", 2, filepath.Join(dir, "seam-20261127T083000Z-000002.ndjson")},
		{"run.ndjson", ".ndjson.zst", 3, "run-000003.ndjson"},
		{"x/run.ndjson.zst", ".ndjson", 1, "x/run-000001.ndjson.zst"},
		{"run.log", ".ndjson", 1, "run.log-000001"},
	} {
		if got := PartPath(tc.spec, start, tc.n, tc.ext); got != tc.want {
			t.Errorf("PartPath(%q, %d, %q) = %q, want %q", tc.spec, tc.n, tc.ext, got, tc.want)
		}
	}
	// Names sort in the order the parts were written.
	var names []string
	for _, n := range []int{10, 2, 1, 100, 9} {
		names = append(names, PartPath("d/", start, n, ".ndjson"))
	}
	slices.Sort(names)
	if names[0] != "d/seam-20261127T083000Z-000001.ndjson" || names[4] != "d/seam-20261127T083000Z-000100.ndjson" {
		t.Errorf("sorted %q", names)
	}
}

func TestCreateFileNeverOverwrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "c.ndjson")
	f, err := CreateFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	if _, err := CreateFile(path); err == nil {
		t.Fatal("created over an existing capture")
	}
}
