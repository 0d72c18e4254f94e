package captures

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/inspect"
)

// progress records what a Progress hears.
type progress struct {
	files []int
	read  int64
}

func (p *progress) File(i int)   { p.files = append(p.files, i) }
func (p *progress) Read(n int64) { p.read += n }

// TestInspectAll: every input is read in turn and fn hears, in input
// order, only the exchanges want selects, each with its input's path and
// header and its report; a reader's skipped problems are warned once the
// input is read, the progress hears each input start, and an error of fn
// ends the run.
func TestInspectAll(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.ndjson"), filepath.Join(dir, "b.ndjson")
	write(t, a, append(capture(time.Now(), 1, 2, 3), `{"type":"chunk","ex":3,"si`...))
	write(t, b, capture(time.Time{}, 1, 2))
	var warned []error
	p := &progress{}
	o := Options{Warn: func(err error) { warned = append(warned, err) }, Progress: p}
	want := func(path string, ex int) bool { return path == a && ex == 2 || path == b && ex != 2 }
	var got []string
	err := InspectAll(context.Background(), []string{a, b}, o, inspect.Options{NoDiffs: true}, want, func(i Inspected) error {
		if i.Report == nil || i.Report.Ex != i.X.Ex || i.Header == nil || i.Header.Seam != "test" {
			t.Errorf("%s#%d: report %v, header %v", i.Path, i.X.Ex, i.Report, i.Header)
		}
		got = append(got, fmt.Sprintf("%s#%d", filepath.Base(i.Path), i.X.Ex))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if w := []string{"a.ndjson#2", "b.ndjson#1"}; !slices.Equal(got, w) {
		t.Errorf("reported %v, want %v", got, w)
	}
	if len(warned) != 1 || !strings.Contains(warned[0].Error(), "torn last line") {
		t.Errorf("warnings %v, want a's torn last line", warned)
	}
	if !slices.Equal(p.files, []int{0, 1}) || p.read == 0 {
		t.Errorf("progress heard files %v and %d bytes", p.files, p.read)
	}
	stop := errors.New("stop")
	n := 0
	err = InspectAll(context.Background(), []string{a, b}, Options{}, inspect.Options{}, nil, func(Inspected) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("after an error of fn: %v, %d calls", err, n)
	}
}

// TestInspectionNext: Next inspects one exchange at a time in the
// input's order, then says the end (nil) for good; Read counts them.
func TestInspectionNext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.ndjson")
	write(t, path, capture(time.Now(), 4, 5))
	s, err := OpenInspection(context.Background(), path, Options{}, inspect.Options{NoDiffs: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var exs []int
	for {
		rep, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if rep == nil {
			break
		}
		exs = append(exs, rep.Ex)
	}
	if rep, err := s.Next(); rep != nil || err != nil {
		t.Errorf("Next after the end: %v, %v", rep, err)
	}
	if !slices.Equal(exs, []int{4, 5}) || s.Read() != 2 {
		t.Errorf("read %v (%d), want [4 5]", exs, s.Read())
	}
	if _, err := OpenInspection(context.Background(), filepath.Join(filepath.Dir(path), "none.ndjson"), Options{}, inspect.Options{}); err == nil {
		t.Error("opened a file that does not exist")
	}
}
