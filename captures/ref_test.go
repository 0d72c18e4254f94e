package captures

import (
	"path/filepath"
	"testing"
	"time"
)

// TestRef: N or CAPTURE#N (the last # splits, so a capture name may hold
// one), numbers from 1; a bare file name matches that file in any
// directory, a path only itself.
func TestRef(t *testing.T) {
	var r Ref
	if err := r.Set("dir/a#b.ndjson#3"); err != nil || r.Capture != "dir/a#b.ndjson" || r.N != 3 || r.String() != "dir/a#b.ndjson#3" {
		t.Errorf("Set: %+v, %v", r, err)
	}
	for _, bad := range []string{"0", "x", "a.ndjson#", "a#-1"} {
		if err := new(Ref).Set(bad); err == nil {
			t.Errorf("Set(%q) accepted", bad)
		}
	}
	for _, c := range []struct {
		ref, path string
		ex        int
		want      bool
	}{
		{"2", "any.ndjson", 2, true},
		{"2", "any.ndjson", 3, false},
		{"a.ndjson#2", "caps/a.ndjson", 2, true},
		{"caps/a.ndjson#2", "caps/a.ndjson", 2, true},
		{"other/a.ndjson#2", "caps/a.ndjson", 2, false},
		{"b.ndjson#2", "caps/a.ndjson", 2, false},
	} {
		var r Ref
		r.Set(c.ref)
		if got := r.Matches(c.path, c.ex); got != c.want {
			t.Errorf("%s matches %s#%d = %v", c.ref, c.path, c.ex, got)
		}
	}
	if (&Ref{}).String() != "" {
		t.Error("the zero Ref names an exchange")
	}
}

// TestIsDir: a directory and an s3:// prefix stand for the captures in
// them; a file, a missing path and an s3:// capture do not.
func TestIsDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.ndjson")
	write(t, file, capture(time.Time{}, 1))
	for path, want := range map[string]bool{
		dir: true, file: false, filepath.Join(dir, "none"): false,
		"s3://bucket/prefix": true, "s3://bucket/prefix/a.ndjson.zst": false,
	} {
		if got := IsDir(path); got != want {
			t.Errorf("IsDir(%s) = %v", path, got)
		}
	}
}
