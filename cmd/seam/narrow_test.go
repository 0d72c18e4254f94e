package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dev/seam/internal/goldenfile"
)

// TestInspectDirAtEighty: seam inspect DIR on an 80-column terminal keeps
// every row's capture and exchange apart (a capture name is cut in its
// middle, its #N kept; the endpoint is cut first), every line fits, and
// the output is the golden testdata/inspect-fixtures-80.golden.
func TestInspectDirAtEighty(t *testing.T) {
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(k string) string { return map[string]string{"COLUMNS": "80"}[k] }}
	if code := exitCode(run(context.Background(), []string{"inspect", fixturesDir}, e), &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	seen := map[string]bool{}
	table := false
	for _, line := range strings.Split(out.String(), "\n") {
		if len([]rune(line)) > 80 {
			t.Errorf("%d columns: %q", len([]rune(line)), line)
		}
		if strings.HasPrefix(line, "capture#ex") {
			table = true
			continue
		}
		if table && line == "" {
			break
		}
		if table {
			id := strings.Fields(line)[0]
			if seen[id] || !strings.Contains(id, "#") {
				t.Errorf("row %q: its capture#ex %q is not told apart", line, id)
			}
			seen[id] = true
		}
	}
	goldenfile.Check(t, filepath.Join("testdata", "inspect-fixtures-80.golden"), out.Bytes(), "SEAM_GEN=1 go test ./cmd/seam -run TestInspectDirAtEighty")
}
