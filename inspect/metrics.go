package inspect

import (
	"strconv"
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

// pluralWord returns "1 stall", "2 stalls": n and the noun, with an s
// unless n is 1.
func pluralWord(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
