package tlsca

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"syscall"
)

// The CA directory and key are trusted only when no other user could have
// chosen them: a CA directory made first by another user in a shared
// temporary directory (SEAM_CA_DIR=/tmp/seam-ca), or a key file another
// user wrote, would have seam sign with a key that user knows, and every
// client trusting seam's CA trust them. Root, which owns the system's
// directories, counts as no other user. The checks are made on Unix;
// Windows has no such mode bits.

// checkDir refuses the CA directory dir when it is not a directory, when it
// belongs to another user, or when users other than its owner can write
// in it (they could swap the CA for theirs).
func checkDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("CA directory: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("CA directory %s is not a directory", dir)
	}
	if runtime.GOOS == "windows" {
		return nil
	}
	if uid, ok := fileOwner(st); ok && uid != os.Geteuid() && uid != 0 {
		return fmt.Errorf("CA directory %s belongs to user %d, not to you (user %d): its owner can swap seam's CA for one whose key they know; use a directory of your own (--ca-dir or SEAM_CA_DIR)", dir, uid, os.Geteuid())
	}
	if st.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("CA directory %s can be written by other users (mode %04o): they can swap seam's CA for one whose key they know; run chmod go-w %s, or use another directory", dir, st.Mode().Perm(), dir)
	}
	return nil
}

// openRegular opens path for reading if it is a regular file, without
// waiting on a named pipe put in its place.
func openRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is not a regular file (mode %v)", path, st.Mode())
	}
	return f, st, nil
}

// readCert reads the CA certificate file at path, a regular file.
func readCert(path string) ([]byte, error) {
	f, _, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxCAFile))
}

// maxCAFile bounds what is read of a CA file: a PEM certificate or key is
// a few kilobytes.
const maxCAFile = 1 << 20

// readKey reads the CA key file at path, refusing it when it is not a
// regular file, when another user owns it (they know the key) or when
// other users can read it. What is checked is the file read: it is opened
// once.
func readKey(path string) ([]byte, error) {
	f, st, err := openRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("read CA key: %w", err)
	}
	defer f.Close()
	if runtime.GOOS != "windows" {
		if uid, ok := fileOwner(st); ok && uid != os.Geteuid() {
			return nil, fmt.Errorf("CA key %s belongs to user %d, not to you (user %d): its owner knows it, and can impersonate any host to a client that trusts the CA; delete it and its certificate and run seam ca to make your own (clients must then trust the new CA)", path, uid, os.Geteuid())
		}
		if st.Mode().Perm()&0o077 != 0 {
			return nil, fmt.Errorf("CA key %s can be read by other users (mode %04o): it can impersonate any host to a client that trusts the CA; run chmod 600 %s", path, st.Mode().Perm(), path)
		}
	}
	b, err := io.ReadAll(io.LimitReader(f, maxCAFile))
	if err != nil {
		return nil, fmt.Errorf("read CA key: %w", err)
	}
	return b, nil
}
