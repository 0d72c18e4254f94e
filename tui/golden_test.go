package tui

import (
	"fmt"
	"strings"
	"testing"

	"path/filepath"

	"github.com/seam-dev/seam/internal/goldenfile"
)

// TestViewGolden renders each screen of the incident capture at 80×24 and
// 140×40, without styling (SEAM_GEN=1 go test ./tui -run TestViewGolden
// rewrites the goldens, and fails so the rewrite is reviewed).
func TestViewGolden(t *testing.T) {
	t.Parallel()
	screens := []struct {
		name string
		keys []string
	}{
		{"list", nil},
		{"list-help", []string{"?"}},
		{"diff", []string{"enter", "n"}},
		{"diff-split", []string{"enter", "v", "n"}},
		{"timeline", []string{"enter", "2"}},
		{"timeline-events-client", []string{"enter", "2", "c", "s", "s"}},
		{"findings", []string{"enter", "3"}},
		{"request", []string{"enter", "4"}},
		{"raw", []string{"enter", "3", "enter", "enter"}},
		{"engine", []string{"enter", "e", "j", "j", "space"}},
		{"diff-replayed", []string{"enter", "e", "j", "j", "space", "esc", "n"}},
		{"detail-help", []string{"enter", "?"}},
	}
	for _, size := range [][2]int{{80, 24}, {140, 40}} {
		for _, sc := range screens {
			t.Run(fmt.Sprintf("%dx%d/%s", size[0], size[1], sc.name), func(t *testing.T) {
				t.Parallel()
				m := newTestModel(t, size[0], size[1], incidentPath)
				press(t, m, sc.keys...)
				goldenfile.Check(t, filepath.Join("testdata", t.Name()+".golden"), []byte(screen(m)), "SEAM_GEN=1 go test ./tui -run TestViewGolden")
			})
		}
	}
}

// TestListDirGolden: the list of a directory of captures at 80×24 keeps
// every row's capture and exchange apart: a capture name too long for its
// column is cut where the names still differ (incid…k-off, incid…ck-on),
// never to a prefix two captures share.
func TestListDirGolden(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, 80, 24, "../fixtures")
	got := screen(m)
	seen := map[string]bool{}
	for _, line := range strings.Split(got, "\n")[2:] {
		f := strings.Fields(strings.TrimPrefix(strings.TrimPrefix(line, "▸"), " "))
		if len(f) < 2 {
			continue
		}
		if id := f[0] + "#" + f[1]; seen[id] {
			t.Errorf("two rows read %s:\n%s", id, got)
		} else {
			seen[id] = true
		}
	}
	goldenfile.Check(t, filepath.Join("testdata", t.Name()+".golden"), []byte(got), "SEAM_GEN=1 go test ./tui -run TestListDirGolden")
}
