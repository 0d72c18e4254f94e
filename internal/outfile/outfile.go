// Package outfile writes a file a user named for seam's output (a report
// page, a JUnit file) without ever replacing what the name stands for when
// it is not a regular file.
//
// A regular file, or a name with nothing behind it yet, is written
// through a temporary file in the same directory and renamed into place
// once it is whole: a failed run leaves the old file, or none, and never
// half a page. Anything else is written into, never replaced: renaming
// over /dev/null (as root) would turn the machine's /dev/null into a
// regular file, over a named pipe would cut off its reader, over a
// symbolic link would drop the link. So a named pipe, a device, and a
// symbolic link to one (a shell's >(gzip > page.gz), /dev/stdout on a
// terminal or a pipe) are opened and written into. A symbolic link to a
// regular file is refused: writing through it would write wherever the
// link's maker chose (as root, a link in a shared directory pointing at
// /etc/passwd); replacing it would drop the link. The error says to name
// the target itself.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrLinkToFile is returned by [Write] for a path that is a symbolic link
// to a regular file.
var ErrLinkToFile = errors.New("a symbolic link to a regular file: seam writes neither through it nor over it; name the file itself")

// Write writes what write produces to path (see the package comment for
// what path may be) and returns the number of bytes written. A file seam
// creates gets mode perm (before the umask for a file opened in place,
// exactly perm for one renamed into place).
func Write(path string, perm fs.FileMode, write func(io.Writer) error) (int64, error) {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return replace(path, perm, write)
	case err != nil:
		return 0, fmt.Errorf("write %s: %w", path, err)
	case st.Mode().IsRegular():
		return replace(path, perm, write)
	case st.IsDir():
		return 0, fmt.Errorf("write %s: is a directory", path)
	case st.Mode()&fs.ModeSymlink != 0:
		target, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return 0, fmt.Errorf("write %s: a symbolic link to nothing: seam does not create a file through a link; name the file itself", path)
		}
		if err != nil {
			return 0, fmt.Errorf("write %s: %w", path, err)
		}
		if target.Mode().IsRegular() {
			return 0, fmt.Errorf("write %s: %w", path, ErrLinkToFile)
		}
		if target.IsDir() {
			return 0, fmt.Errorf("write %s: is a directory", path)
		}
	}
	return into(path, write)
}

// into writes into the file at path, which is not a regular file: a
// named pipe or a device, maybe behind a symbolic link. Opening a named
// pipe waits for its reader.
func into(path string, write func(io.Writer) error) (int64, error) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return 0, fmt.Errorf("write %s: %w", path, err)
	}
	// What was opened is checked, not what was looked at: a regular file
	// put in its place meanwhile would be written over in part.
	if st, err := f.Stat(); err != nil || st.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = errors.New("became a regular file while it was opened")
		}
		return 0, fmt.Errorf("write %s: %w", path, err)
	}
	cw := &countingWriter{w: f}
	if err := write(cw); err != nil {
		f.Close()
		return cw.n, fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return cw.n, fmt.Errorf("write %s: %w", path, err)
	}
	return cw.n, nil
}

// replace writes path through a temporary file in the same directory,
// renamed over path only when write succeeded.
func replace(path string, perm fs.FileMode, write func(io.Writer) error) (int64, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return 0, fmt.Errorf("write %s: %w", path, err)
	}
	fail := func(err error) (int64, error) {
		f.Close()
		os.Remove(f.Name())
		return 0, fmt.Errorf("write %s: %w", path, err)
	}
	cw := &countingWriter{w: f}
	if err := write(cw); err != nil {
		return fail(err)
	}
	if err := f.Chmod(perm); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return 0, fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return 0, fmt.Errorf("write %s: %w", path, err)
	}
	return cw.n, nil
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
