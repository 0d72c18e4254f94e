package junit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteTo: "-" writes the report to stdout, a path to the file, and
// a file that cannot be written is an error naming --junit.
func TestWriteTo(t *testing.T) {
	cases := []Case{{Name: "exchange 1"}}
	var out bytes.Buffer
	if err := WriteTo(&out, "-", "seam inspect", cases, 0); err != nil || !strings.Contains(out.String(), `name="exchange 1"`) {
		t.Errorf("stdout: %v\n%s", err, out.String())
	}
	path := filepath.Join(t.TempDir(), "r.xml")
	out.Reset()
	if err := WriteTo(&out, path, "seam inspect", cases, 0); err != nil || out.Len() != 0 {
		t.Fatalf("file: %v, stdout %q", err, out.String())
	}
	if b, _ := os.ReadFile(path); !bytes.Contains(b, []byte(`name="exchange 1"`)) {
		t.Errorf("file holds %s", b)
	}
	if err := WriteTo(&out, filepath.Join(path, "sub.xml"), "s", cases, 0); err == nil || !strings.HasPrefix(err.Error(), "--junit: ") {
		t.Errorf("unwritable: %v", err)
	}
}
