package captures

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/seam-dev/seam/internal/filelock"
	"github.com/seam-dev/seam/tape"
)

// A recording split into files (seam record --rotate) writes its parts
// side by side, named after the recording and numbered from 1 with six
// digits, so the names sort in the order the files were written:
// captures/seam-20261122T093428Z-000001.ndjson.zst, then -000002, and a
// file name given to -o (x.ndjson) is numbered before its extension
// (x-000001.ndjson).

// partDigits is how many digits a part number is written with.
const partDigits = 6

// PartPath returns where part n (from 1) of a recording started at start
// goes, for the -o spec as Create takes it ("" for ./captures/, a
// directory, or a file name). ext (".ndjson" or ".ndjson.zst") is the
// extension when spec names no file; a file name keeps its own.
func PartPath(spec string, start time.Time, n int, ext string) string {
	stem := "seam-" + start.UTC().Format("20060102T150405Z")
	dir := "captures"
	switch {
	case spec == "":
	case strings.HasSuffix(spec, "/") || strings.HasSuffix(spec, string(os.PathSeparator)):
		dir = spec
	default:
		if st, err := os.Stat(spec); err == nil && st.IsDir() {
			dir = spec
			break
		}
		dir, stem, ext = filepath.Dir(spec), filepath.Base(spec), ""
		for _, e := range []string{".ndjson" + tape.CompressedExt, ".ndjson"} {
			if s, ok := strings.CutSuffix(stem, e); ok {
				stem, ext = s, e
				break
			}
		}
	}
	return filepath.Join(dir, fmt.Sprintf("%s-%0*d%s", stem, partDigits, n, ext))
}

// CreateFile creates the capture file at path, and its directory: never
// over an existing file, readable by its owner alone (a capture quotes
// prompts and answers), and locked while it is open, so a file a running
// seam writes is told from one a seam that died left (internal/filelock).
func CreateFile(path string) (*os.File, error) {
	if err := makeDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("capture %s already exists; choose another -o", path)
	}
	if err != nil {
		return nil, fmt.Errorf("create capture: %w", err)
	}
	filelock.Lock(f)
	return f, nil
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
