package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// openDirs opens paths at 200×30 (wide enough for a temporary directory's
// name) and drives the model until it is idle.
func openDirs(t *testing.T, follow bool, paths ...string) *model {
	t.Helper()
	return openModel(t, 200, 30, Options{Paths: paths, Follow: follow})
}

// tick sends one follow tick and drives the model until it is idle.
func tick(t *testing.T, m *model) {
	t.Helper()
	_, cmd := m.Update(tickMsg{})
	drive(t, m, cmd)
}

// listed returns the list's rows as "file:ex", in the order shown.
func listed(m *model) []string {
	var out []string
	for _, r := range m.list.rows {
		s := m.sums[r]
		out = append(out, fmt.Sprintf("%s:%d", filepath.Base(m.caps[s.file].name), s.ex))
	}
	return out
}

// rowsOf lists the rows a capture of n exchanges named name adds.
func rowsOf(name string, n int) []string {
	var out []string
	for ex := 1; ex <= n; ex++ {
		out = append(out, fmt.Sprintf("%s:%d", name, ex))
	}
	return out
}

// TestFollowDirectory opens an empty directory with Follow, as in "seam tui
// --follow captures/" before "seam record -o captures/" runs, and checks
// that captures written into it afterwards show up with their exchanges,
// ordered by name like the files found at start, and that a file deleted
// or renamed afterwards keeps what was loaded, once.
func TestFollowDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m := openDirs(t, true, dir)
	if s := screen(m); !strings.Contains(s, "waiting for captures in "+dir) {
		t.Fatalf("empty followed directory; screen lacks the waiting line:\n%s", s)
	}
	if !m.following() {
		t.Fatal("an empty followed directory is not followed")
	}

	steps := []struct {
		name string
		do   func()
		want []string
	}{
		{"first capture", func() {
			writeCapture(t, filepath.Join(dir, "seam-b.ndjson"), synthCapture(2, 3, false))
		}, rowsOf("seam-b.ndjson", 2)},
		{"second capture", func() {
			writeCapture(t, filepath.Join(dir, "seam-c.ndjson"), synthCapture(3, 3, true))
		}, slices.Concat(rowsOf("seam-b.ndjson", 2), rowsOf("seam-c.ndjson", 3))},
		{"a capture sorting first, and a file that is not one", func() {
			writeCapture(t, filepath.Join(dir, "seam-a.ndjson"), synthCapture(1, 3, false))
			writeCapture(t, filepath.Join(dir, "notes.txt"), []byte("not a capture\n"))
		}, slices.Concat(rowsOf("seam-a.ndjson", 1), rowsOf("seam-b.ndjson", 2), rowsOf("seam-c.ndjson", 3))},
		{"nothing new", func() {}, slices.Concat(rowsOf("seam-a.ndjson", 1), rowsOf("seam-b.ndjson", 2), rowsOf("seam-c.ndjson", 3))},
		{"deleted", func() {
			if err := os.Remove(filepath.Join(dir, "seam-b.ndjson")); err != nil {
				t.Fatal(err)
			}
		}, slices.Concat(rowsOf("seam-a.ndjson", 1), rowsOf("seam-b.ndjson", 2), rowsOf("seam-c.ndjson", 3))},
		{"renamed", func() {
			if err := os.Rename(filepath.Join(dir, "seam-c.ndjson"), filepath.Join(dir, "seam-d.ndjson")); err != nil {
				t.Fatal(err)
			}
		}, slices.Concat(rowsOf("seam-a.ndjson", 1), rowsOf("seam-b.ndjson", 2), rowsOf("seam-c.ndjson", 3))},
	}
	for _, st := range steps {
		st.do()
		tick(t, m)
		if got := listed(m); !slices.Equal(got, st.want) {
			t.Fatalf("after %s: rows %v, want %v", st.name, got, st.want)
		}
		if m.statusErr {
			t.Fatalf("after %s: error %q", st.name, m.status)
		}
	}
	if s := screen(m); strings.Contains(s, "waiting for captures") || !strings.Contains(s, "3 captures in "+dir) {
		t.Errorf("screen after captures arrived:\n%s", s)
	}
	for _, s := range m.sums {
		if _, ok := m.badges[exKey{s.file, s.ex}]; !ok {
			t.Errorf("exchange %d of %s was never inspected", s.ex, m.caps[s.file].name)
		}
	}

	// The deleted capture's exchanges still open: its file stays open.
	press(t, m, "down", "down", "enter")
	if m.det == nil || m.det.rec == nil || len(m.det.rec.x.Client.Chunks) != 3 {
		t.Fatal("exchange 2 of the deleted capture did not open")
	}
	press(t, m, "esc")

	// The directory itself goes away: say so once, keep the list.
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	tick(t, m)
	if !m.statusErr || !strings.Contains(m.status, "list "+dir) {
		t.Errorf("status after the directory was removed: %q", m.status)
	}
	if got := len(listed(m)); got != 6 {
		t.Errorf("%d rows after the directory was removed, want 6", got)
	}
}

// TestFollowDirectoryHalfHeader catches a new capture before its header
// line is whole: no "not a readable capture" error, and its exchanges show
// once the recorder finished the line.
func TestFollowDirectoryHalfHeader(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m := openDirs(t, true, dir)
	data := synthCapture(2, 3, false)
	path := filepath.Join(dir, "live.ndjson")
	writeCapture(t, path, data[:20])
	tick(t, m)
	if m.statusErr || len(m.caps) != 1 {
		t.Fatalf("%d captures, status %q", len(m.caps), m.status)
	}
	writeCapture(t, path, data)
	tick(t, m)
	if got, want := listed(m), rowsOf("live.ndjson", 2); !slices.Equal(got, want) || m.statusErr {
		t.Fatalf("rows %v (want %v), status %q", got, want, m.status)
	}
}

// TestFollowDirectoriesOrder follows two directories, each with a capture:
// a capture appearing in the first one is listed with the first one's
// files, before the second directory's.
func TestFollowDirectoriesOrder(t *testing.T) {
	t.Parallel()
	one, two := t.TempDir(), t.TempDir()
	writeCapture(t, filepath.Join(one, "x.ndjson"), synthCapture(1, 3, false))
	writeCapture(t, filepath.Join(two, "y.ndjson"), synthCapture(1, 3, false))
	m := openDirs(t, true, one, two)
	writeCapture(t, filepath.Join(one, "z.ndjson"), synthCapture(2, 3, false))
	tick(t, m)
	want := slices.Concat(rowsOf("x.ndjson", 1), rowsOf("z.ndjson", 2), rowsOf("y.ndjson", 1))
	if got := listed(m); !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
}

// TestUnfollowedDirectory checks that without Follow a directory is read
// once: a capture written into it later does not show, and an empty one is
// an error.
func TestUnfollowedDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeCapture(t, filepath.Join(dir, "a.ndjson"), synthCapture(2, 3, false))
	m := openDirs(t, false, dir)
	if m.following() {
		t.Fatal("an unfollowed directory is followed")
	}
	writeCapture(t, filepath.Join(dir, "b.ndjson"), synthCapture(1, 3, false))
	tick(t, m)
	if got, want := listed(m), rowsOf("a.ndjson", 2); !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}

	empty := t.TempDir()
	_, err := newModel(t.Context(), Options{Paths: []string{empty}})
	if err == nil || !strings.Contains(err.Error(), "no *.ndjson captures") {
		t.Errorf("empty unfollowed directory: error %v", err)
	}
}
