package captures

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible"
	"github.com/tidwall/gjson"
)

// Expand expands args (files, directories, "-", s3:// URIs) into capture
// paths: a directory stands for the captures in it and its
// subdirectories, plain and zstd-compressed (see Walk), and an s3:// prefix
// for the captures under it (see IsRemote); a file, an object and "-"
// stand for themselves.
func Expand(ctx context.Context, args []string, o Options) ([]string, error) {
	var paths []string
	for _, a := range args {
		if a == "-" {
			paths = append(paths, a)
			continue
		}
		if IsRemote(a) {
			found, err := expandRemote(ctx, a, o)
			if err != nil {
				return nil, err
			}
			paths = append(paths, found...)
			continue
		}
		st, err := os.Stat(a)
		if err != nil {
			return nil, PathError(err)
		}
		if !st.IsDir() {
			paths = append(paths, a)
			continue
		}
		found, err := Walk(ctx, a, o)
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no captures (*.ndjson or *.ndjson.zst) in this directory or below it", a)
		}
		paths = append(paths, found...)
	}
	return paths, nil
}

// Walk returns the captures in dir and its subdirectories: the files named
// as captures are (tape.HasCaptureExt: *.ndjson, *.ndjson.zst) whose first
// line is a capture header. Other files, such as the raw Ollama bodies a
// fixtures directory keeps beside its captures, are left out; name one to
// read it as a raw recording. They come in the order they were recorded
// (their headers' start times, the name breaking ties), so sessions link
// earlier turns first whatever the subdirectories; captures without a
// start time (imports) come after, by name. Only regular files are read
// (symbolic links to them included): a named pipe, a device or a socket
// with a capture's name is skipped, with a note to o.Note, since opening
// one can wait forever.
func Walk(ctx context.Context, dir string, o Options) ([]string, error) {
	type found struct {
		path    string
		started time.Time
	}
	var all []found
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("list %s: %w", path, err)
		}
		if d.IsDir() || !tape.HasCaptureExt(d.Name()) {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		h, err := Header(path)
		if errors.Is(err, tape.ErrNotRegular) {
			if o.Note != nil {
				o.Note(fmt.Sprintf("skipped %s (name it as an argument to read it)", visible.String(err.Error())))
			}
			return nil
		}
		if err != nil {
			return err
		}
		if h != nil {
			all = append(all, found{path, h.Started})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(all, func(a, b found) int {
		switch {
		case a.started.IsZero() != b.started.IsZero():
			if a.started.IsZero() {
				return 1
			}
			return -1
		case !a.started.Equal(b.started):
			return a.started.Compare(b.started)
		}
		return strings.Compare(a.path, b.path)
	})
	paths := make([]string, len(all))
	for i, f := range all {
		paths[i] = f.path
	}
	return paths, nil
}

// Exists reports whether path holds captures: "-" (stdin), an s3:// URI
// (reading it says), an existing file, or a directory with captures in it or below (see Walk, which says
// nothing of what it skips here).
func Exists(ctx context.Context, path string) (bool, error) {
	if path == "-" || IsRemote(path) {
		return true, nil
	}
	st, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("open capture: %w", err)
	}
	if !st.IsDir() {
		return true, nil
	}
	found, err := Walk(ctx, path, Options{})
	return len(found) > 0, err
}

// Header reads the header of the capture at path (decompressing a zstd
// one), or returns nil when the file does not start like a capture; a
// capture whose header does not decode gives an empty header (reading it
// says what is wrong with it). A path that is not a regular file is an
// error wrapping tape.ErrNotRegular.
func Header(path string) (*tape.Header, error) {
	f, err := tape.OpenRegular(path)
	if err != nil {
		return nil, PathError(err)
	}
	defer f.Close()
	r, err := tape.Uncompress(f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(64)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, tape.ErrCutShort) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if !IsCapture(head) {
		return nil, nil
	}
	h, err := tape.NewExchangeReader(br, path).Header()
	if err != nil {
		return &tape.Header{}, nil
	}
	return h, nil
}

// IsCapture reports whether head starts a seam capture file: its first
// non-blank line is a JSON object whose "type" is one of the capture's line
// types (a capture whose first line is not its header is a capture with an
// error, which tape reports, not a recording to import).
func IsCapture(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n")
	if bytes.HasPrefix(head, []byte(`{"type":"capture"`)) {
		return true
	}
	line, _, _ := bytes.Cut(head, []byte("\n"))
	switch gjson.GetBytes(line, "type").String() {
	case "capture", "request", "response", "chunk", "end":
		return gjson.GetBytes(line, "ex").Exists() || gjson.GetBytes(line, "v").Exists()
	}
	return false
}

// Names returns the names of the capture files (*.ndjson, *.ndjson.zst)
// among one directory's entries, sorted; subdirectories are not entered.
// A directory followed as it fills is listed with it.
func Names(ents []fs.DirEntry) []string {
	var names []string
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		if tape.HasCaptureExt(e.Name()) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names
}
