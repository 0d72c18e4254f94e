//go:build unix

package filelock

import (
	"os"

	"golang.org/x/sys/unix"
)

const supported = true

func lock(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	var lerr error
	if err := rc.Control(func(fd uintptr) { lerr = unix.Flock(int(fd), unix.LOCK_EX|unix.LOCK_NB) }); err != nil {
		return false
	}
	return lerr == nil
}
