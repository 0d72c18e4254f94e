//go:build !unix

package bench

import "time"

// ProcessCPU returns 0: this system's process CPU time is not read here,
// and the figures built on it show 0.
func ProcessCPU() time.Duration { return 0 }
