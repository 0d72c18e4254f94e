package captures

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Create opens where a new capture goes. spec is a file, a directory
// (existing, or ending in a slash) for seam-<UTC time>.ndjson in it, "-"
// for stdout, or "" for the default directory ./captures/. It never
// overwrites an existing file; a new file is made 0600 (a capture quotes
// prompts and answers). It returns the file and its path ("stdout" for
// "-").
func Create(spec string, stdout io.Writer, now time.Time) (io.WriteCloser, string, error) {
	if spec == "-" {
		return nopCloser{stdout}, "stdout", nil
	}
	name := "seam-" + now.UTC().Format("20060102T150405Z") + ".ndjson"
	path := spec
	switch {
	case spec == "":
		path = filepath.Join("captures", name)
	case strings.HasSuffix(spec, "/") || strings.HasSuffix(spec, string(os.PathSeparator)):
		path = filepath.Join(spec, name)
	default:
		if st, err := os.Stat(spec); err == nil && st.IsDir() {
			path = filepath.Join(spec, name)
		}
	}
	if err := makeDir(filepath.Dir(path)); err != nil {
		return nil, "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil, "", fmt.Errorf("capture %s already exists; choose another -o", path)
	}
	if err != nil {
		return nil, "", fmt.Errorf("create capture: %w", err)
	}
	return f, path, nil
}

// makeDir makes the directory a new capture goes in when it is missing,
// one level only: a missing parent is more likely a typo in -o than a
// tree to create, and is refused saying so.
func makeDir(dir string) error {
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return nil
	}
	if _, err := os.Stat(filepath.Dir(dir)); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("capture directory %s: its parent %s does not exist either (a typo? create it with mkdir -p first)", dir, filepath.Dir(dir))
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("create capture directory: %w", err)
	}
	return nil
}

// Discard is where a capture that goes nowhere is written.
func Discard() io.WriteCloser { return nopCloser{io.Discard} }

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
