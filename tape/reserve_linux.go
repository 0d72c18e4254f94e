package tape

import (
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// fallocKeepSize is FALLOC_FL_KEEP_SIZE: allocate without changing the
// file's size.
const fallocKeepSize = 0x1

// worthReserving reports whether f's filesystem allocates disk blocks: on
// tmpfs (and ramfs) a reservation would only hold memory.
func worthReserving(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	var st unix.Statfs_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.Fstatfs(int(fd), &st) }); err != nil || serr != nil {
		return false
	}
	return st.Type != unix.TMPFS_MAGIC && st.Type != unix.RAMFS_MAGIC
}

// reserve allocates n bytes of disk space for f from offset off, leaving
// its size as it is.
func reserve(f *os.File, off, n int64) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	err = rc.Control(func(fd uintptr) {
		for {
			ferr = syscall.Fallocate(int(fd), fallocKeepSize, off, n)
			if ferr != syscall.EINTR {
				return
			}
		}
	})
	if err != nil {
		return err
	}
	return ferr
}

// writeBuffers writes bufs to f in order with writev, as many calls as it
// takes.
func writeBuffers(f *os.File, bufs [][]byte) (int64, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var total int64
	var werr error
	err = rc.Control(func(fd uintptr) {
		var iov [][]byte
		for len(bufs) > 0 {
			n, err := unix.Writev(int(fd), firstBytes(iov[:0], bufs, writeMax))
			if err == syscall.EINTR || err == syscall.EAGAIN {
				continue
			}
			if n > 0 {
				total += int64(n)
			}
			if err != nil {
				werr = &os.PathError{Op: "write", Path: f.Name(), Err: err}
				return
			}
			if n == 0 {
				werr = &os.PathError{Op: "write", Path: f.Name(), Err: io.ErrShortWrite}
				return
			}
			for n > 0 {
				k := min(n, len(bufs[0]))
				bufs[0] = bufs[0][k:]
				n -= k
				if len(bufs[0]) == 0 {
					bufs = bufs[1:]
				}
			}
		}
	})
	if err != nil {
		return total, err
	}
	return total, werr
}

// firstBytes appends to iov the first n bytes of bufs (all of them when
// fewer), at most iovMax buffers, and returns it.
func firstBytes(iov, bufs [][]byte, n int) [][]byte {
	for _, b := range bufs[:min(len(bufs), iovMax)] {
		if len(b) >= n {
			return append(iov, b[:n])
		}
		iov = append(iov, b)
		n -= len(b)
	}
	return iov
}

// iovMax is the most buffers one writev takes (IOV_MAX).
const iovMax = 1024
