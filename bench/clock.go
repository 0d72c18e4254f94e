package bench

import "time"

// Clock is a monotonic nanosecond clock shared by the [Upstream] and the
// [Client] of one process: a receive time minus the send time stamped into an
// event is that event's latency.
type Clock struct {
	start time.Time
}

// NewClock returns a Clock whose zero is now.
func NewClock() Clock { return Clock{start: time.Now()} }

// Now returns the nanoseconds since the clock's zero, on the monotonic clock.
func (c Clock) Now() int64 { return int64(time.Since(c.start)) }
