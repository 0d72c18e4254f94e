package captures

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/seam-dev/seam/internal/outfile"
	"github.com/seam-dev/seam/tape"
)

// Local returns what a reader of capture files in place (the TUI, which
// tails them) can read for args: a local capture or directory as it is;
// an s3:// input as local copies of the captures it names, streamed; a
// recording seam imports (a raw body, a cassette, a HAR) as the capture it
// converts to, written by seam version seam and shown under the
// recording's name (names). Copies and imports go to one private
// temporary directory that cleanup removes. Any other argument is left as
// it is, for the reader to say what is wrong with it.
func Local(ctx context.Context, args []string, o Options, seam string) (paths []string, names map[string]string, cleanup func(), err error) {
	names = map[string]string{}
	dir := ""
	cleanup = func() {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	private := func(pattern string) (string, error) {
		if dir == "" {
			d, err := os.MkdirTemp("", "seam-tui-")
			if err != nil {
				return "", fmt.Errorf("tui: a private directory for its inputs: %w", err)
			}
			dir = d
		}
		return os.MkdirTemp(dir, pattern)
	}
	for _, a := range args {
		switch {
		case IsRemote(a):
			sub, err := private("s3-")
			if err != nil {
				return nil, nil, cleanup, err
			}
			local, err := Fetch(ctx, a, sub, o)
			if err != nil {
				return nil, nil, cleanup, err
			}
			paths = append(paths, local...)
		case importable(a):
			c, err := Load(ctx, a, o)
			if err != nil {
				return nil, nil, cleanup, err
			}
			sub, err := private("import-")
			if err != nil {
				return nil, nil, cleanup, err
			}
			p := filepath.Join(sub, "capture.ndjson")
			if _, err := outfile.Write(p, 0o600, func(w io.Writer) error { return tape.WriteCapture(ctx, w, c, seam) }); err != nil {
				return nil, nil, cleanup, fmt.Errorf("tui: import %s: %w", a, err)
			}
			names[p] = a + " (imported)"
			paths = append(paths, p)
		default:
			paths = append(paths, a)
		}
	}
	return paths, names, cleanup, nil
}

// importable reports whether path is a regular file that is not a
// capture: a recording read once converted.
func importable(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	return err == nil && st.Mode().IsRegular() && CheckHeader(f, path) != nil
}
