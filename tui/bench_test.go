package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeLargeCapture writes a synthetic capture of at least size bytes.
func writeLargeCapture(tb testing.TB, size int) string {
	tb.Helper()
	one := synthCapture(100, 200, true)
	n := max(size/len(one), 1) * 100
	data := synthCapture(n+100, 200, true)
	path := filepath.Join(tb.TempDir(), "large.ndjson")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// openToList opens path and indexes it to its end without inspecting any
// exchange in the background, then renders the list. It returns the view.
func openToList(tb testing.TB, path string) string {
	m, err := newModel(context.Background(), Options{Paths: []string{path}})
	if err != nil {
		tb.Fatal(err)
	}
	defer m.close()
	m.badging = true // measure the open, not the background badges
	m.Update(tickSize(120, 35))
	drive(tb, m, m.Init())
	return screen(m)
}

// BenchmarkOpenLargeCapture measures how long a 100 MB capture takes to
// open to a rendered exchange list: the byte-scan index of every line plus
// the first frame. The file is in the page cache, as after a recording.
func BenchmarkOpenLargeCapture(b *testing.B) {
	path := writeLargeCapture(b, 100<<20)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	for b.Loop() {
		v := openToList(b, path)
		if !strings.Contains(v, "▸ 1 ") {
			b.Fatalf("no list rendered:\n%s", v)
		}
	}
}
