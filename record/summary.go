package record

import (
	"fmt"
	"time"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible"
)

// Summary describes one recorded exchange once both sides have ended.
type Summary struct {
	Ex     int
	Method string
	// Path is the request's path as it came on the wire, still escaped
	// (%1B stays %1B), without the query.
	Path           string
	Host           string // where the request went in forward mode; "" with one upstream
	Model          string // the model the request names; "" when it names none
	Status         int    // status written to the client
	Outcome        tape.Outcome
	Error          string
	UpstreamBytes  int64
	ClientBytes    int64
	UpstreamEvents int
	ClientEvents   int
	TTFB           time.Duration // request received → first upstream byte; 0 when none arrived
	Duration       time.Duration // request received → client side ended
	// NoUpstream is set in a sandwich when the proxy under test answered
	// without going upstream (or its back leg had not ended 2s after the
	// client side): the upstream numbers are unknown.
	NoUpstream bool
	// File is the capture file the exchange was recorded in (with
	// [Rotation], one of several), for a [Recording]; "" for a Recorder
	// given a Writer.
	File string
}

// String formats s as the one-line summary seam record prints. The method,
// path and error come from the client and the upstream, so they are drawn
// with visible markers (package visible): whoever can send a request to
// seam cannot write to the terminal it runs in.
func (s Summary) String() string {
	up, ttfb := fmt.Sprintf("%s/%d ev", units.Bytes(s.UpstreamBytes), s.UpstreamEvents), units.Duration(int64(s.TTFB))
	if s.NoUpstream {
		up, ttfb = "-", "-"
	}
	model := ""
	if s.Model != "" {
		model = " " + visible.String(excerpt.Clip(s.Model, 40))
	}
	line := fmt.Sprintf("#%d %s %s%s %d %s  up %s  client %s/%d ev  ttfb %s  %s",
		s.Ex, visible.String(s.Method), visible.String(s.Host+s.Path), model, s.Status, s.Outcome,
		up, units.Bytes(s.ClientBytes), s.ClientEvents, ttfb, units.Duration(int64(s.Duration)))
	if s.Error != "" {
		line += "  (" + visible.String(s.Error) + ")"
	}
	return line
}
