//go:build unix

package main

import (
	"os"
	"syscall"
)

// peakRSS returns the peak resident set of an ended child process, in
// bytes (Linux reports ru_maxrss in KiB).
func peakRSS(st *os.ProcessState) int64 {
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss << 10
	}
	return 0
}
