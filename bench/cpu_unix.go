//go:build unix

package bench

import (
	"syscall"
	"time"
)

// ProcessCPU returns the CPU time this process has used so far, user and
// system: the figure that holds on a busy machine, where wall time does
// not.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
