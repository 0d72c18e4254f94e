package inspect

import (
	"time"

	"github.com/seam-dev/seam/timing"
)

// DefaultStall is the gap between two chunks of a side beyond which it
// counts as a stall, when Options.Stall is 0 (timing.DefaultStall).
const DefaultStall = timing.DefaultStall

// stallOf returns the stall threshold opts ask for.
func stallOf(opts Options) time.Duration {
	if opts.Stall > 0 {
		return opts.Stall
	}
	return DefaultStall
}
