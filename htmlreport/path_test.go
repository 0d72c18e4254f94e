package htmlreport

import (
	"path/filepath"
	"testing"
)

// TestPagePath: <name>.report.html here by default or in the directory -o
// names, -o FILE and - as given; stdin needs -o FILE or -.
func TestPagePath(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ in, output, want string }{
		{"caps/x.ndjson", "", "x.report.html"},
		{"caps/x.ndjson.zst", "", "x.ndjson.report.html"},
		{"caps/x.ndjson", dir, filepath.Join(dir, "x.report.html")},
		{"caps/x.ndjson", "page.html", "page.html"},
		{"caps/x.ndjson", "-", "-"},
		{"-", "-", "-"},
		{"-", "page.html", "page.html"},
	} {
		if got, err := PagePath(c.in, c.output); err != nil || got != c.want {
			t.Errorf("%s -o %q: %s, %v, want %s", c.in, c.output, got, err, c.want)
		}
	}
	for _, output := range []string{"", dir} {
		if _, err := PagePath("-", output); err == nil {
			t.Errorf("stdin -o %q: no error", output)
		}
	}
}
