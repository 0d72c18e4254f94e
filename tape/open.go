package tape

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is returned by [OpenRegular] for a path that is not a
// regular file (after symbolic links): a named pipe, a device, a socket or
// a directory.
var ErrNotRegular = errors.New("not a regular file")

// OpenRegular opens the named file for reading if it is a regular file,
// following symbolic links, and otherwise returns an error wrapping
// [ErrNotRegular] that names what the file is, without waiting: opening a
// named pipe for reading blocks until a writer opens it, which may be
// never (a directory unpacked from a tarball can hold a FIFO named
// capture.ndjson). The file is opened non-blocking and checked through
// the descriptor, so no file put in its place between a check and the
// open slips through; a regular file reads as usual. Use it for files a
// directory listing found; a path the user named is theirs to name a pipe
// (a shell's <(…)), and os.Open serves it.
func OpenRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w: %s", ErrNotRegular, FileKind(st.Mode()))}
	}
	return f, nil
}

// FileKind names the kind of file mode m is, as a user says it: "a
// regular file", "a named pipe (FIFO)", "a directory".
func FileKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}
