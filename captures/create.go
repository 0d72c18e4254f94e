package captures

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/seam-dev/seam/tape"
)

// Create opens where a new capture goes. spec is a file, a directory
// (existing, or ending in a slash) for seam-<UTC time>.ndjson in it, "-"
// for stdout, or "" for the default directory ./captures/. It never
// overwrites an existing file; a new file is made 0600 (a capture quotes
// prompts and answers) and locked while open (see CreateFile). It
// returns the file and its path ("stdout" for "-").
func Create(spec string, stdout io.Writer, now time.Time) (io.WriteCloser, string, error) {
	if spec == "-" {
		return nopCloser{stdout}, "stdout", nil
	}
	path := NewPath(spec, now, ".ndjson")
	f, err := CreateFile(path)
	if err != nil {
		return nil, "", err
	}
	return f, path, nil
}

// Save writes c where Create puts a new capture for spec, now (seam is
// the version of seam writing, for a header that names none), and
// returns the path written ("stdout" for "-").
func Save(ctx context.Context, spec string, stdout io.Writer, c *tape.Capture, seam string) (string, error) {
	out, path, err := Create(spec, stdout, time.Now())
	if err != nil {
		return "", err
	}
	if err := tape.WriteCapture(ctx, out, c, seam); err != nil {
		out.Close()
		return "", err
	}
	if err := out.Close(); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, nil
}

// NewPath returns where a new capture goes for the -o spec as Create
// takes it: spec itself when it names a file, else seam-<UTC time> with
// extension ext in the directory it names ("" for ./captures/).
func NewPath(spec string, now time.Time, ext string) string {
	name := "seam-" + now.UTC().Format("20060102T150405Z") + ext
	switch {
	case spec == "":
		return filepath.Join("captures", name)
	case strings.HasSuffix(spec, "/") || strings.HasSuffix(spec, string(os.PathSeparator)):
		return filepath.Join(spec, name)
	}
	if st, err := os.Stat(spec); err == nil && st.IsDir() {
		return filepath.Join(spec, name)
	}
	return spec
}

// Discard is where a capture that goes nowhere is written.
func Discard() io.WriteCloser { return nopCloser{io.Discard} }

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
