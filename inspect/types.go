package inspect

import (
	"fmt"
	"strings"

	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible"
)

// Severity ranks a finding. The zero value is Info.
type Severity int

// Severities, from least to most serious.
const (
	// Info is a fact worth knowing that breaks nothing by itself.
	Info Severity = iota
	// Warn is a departure that breaks some clients or hides a problem.
	Warn
	// Error is a defect: some client ends up with a wrong message.
	Error
)

// String returns "info", "warn" or "error".
func (s Severity) String() string {
	switch s {
	case Warn:
		return "warn"
	case Error:
		return "error"
	default:
		return "info"
	}
}

// MarshalText encodes the severity as its name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText decodes a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseSeverity parses "info", "warn" (or "warning") and "error".
func ParseSeverity(name string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "info":
		return Info, nil
	case "warn", "warning":
		return Warn, nil
	case "error":
		return Error, nil
	}
	return Info, fmt.Errorf("unknown severity %q (want info, warn or error)", name)
}

// Pointer says where in a capture something happened. Event, Chunk and Off
// are -1 when they do not apply (a request-level finding, for instance).
type Pointer struct {
	// Ex is the exchange number (from 1).
	Ex int `json:"ex"`
	// Side is the response side, empty for request-level findings.
	Side tape.Side `json:"side,omitempty"`
	// Event is the index of the event in that side's event list.
	Event int `json:"event"`
	// Chunk is the index of the chunk holding the event's first byte.
	Chunk int `json:"chunk"`
	// Off is the byte offset of the event's first byte in the side's body
	// (the decoded body when the side has a Content-Encoding: chunk
	// indices and times are the wire chunks', offsets the decoded bytes').
	Off int64 `json:"off"`
	// T is the time (ns since capture start) of the chunk that completed the event.
	T int64 `json:"t"`
}

// String renders the pointer the way the text report prints it: "ex 1
// client event 282 (chunk 282, byte 54805, 5ms into the capture)".
func (p Pointer) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ex %d", p.Ex)
	if p.Side != "" {
		fmt.Fprintf(&b, " %s", p.Side)
	}
	switch {
	case p.Event >= 0:
		fmt.Fprintf(&b, " event %d (chunk %d, byte %d, %s)", p.Event, p.Chunk, p.Off, p.when())
	case p.Chunk >= 0:
		fmt.Fprintf(&b, " chunk %d (byte %d, %s)", p.Chunk, p.Off, p.when())
	}
	return b.String()
}

// when says when the pointer's chunk came, labelled with its clock: the
// capture's ("1.22s into the capture"), as every other time seam shows is
// since the exchange's request ("ttfb 255ms", the timeline, the chart).
func (p Pointer) when() string {
	if p.T < 0 {
		return "time unknown"
	}
	return units.Duration(p.T) + " into the capture"
}

// Finding is one thing a detector noticed.
type Finding struct {
	// ID is the detector's stable id, e.g. "xml.unclosed-closer".
	ID string `json:"id"`
	// Severity is the detector's severity.
	Severity Severity `json:"severity"`
	// Message is a one-line description.
	Message string `json:"message"`
	// Pointer says where it happened.
	Pointer Pointer `json:"at"`
	// Peer, for a finding that compares the upstream and client sides, is
	// where its counterpart was born on the other side (nil when there is
	// none: a call only one side has).
	Peer *Pointer `json:"peer,omitempty"`
	// Evidence is a short excerpt of the bytes or text that prove it.
	Evidence string `json:"evidence,omitempty"`
}

// eventPointer returns a pointer for event i of side s of exchange ex.
func eventPointer(s *protocol.Side, ex int, side tape.Side, i int) Pointer {
	if i < 0 || i >= len(s.Events) {
		return Pointer{Ex: ex, Side: side, Event: -1, Chunk: -1, Off: -1, T: -1}
	}
	e := s.Events[i]
	return Pointer{Ex: ex, Side: side, Event: i, Chunk: e.Chunk, Off: e.Off, T: e.T}
}

// orDash draws s (from a capture) for the terminal, or "-" when empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return visible.String(s)
}
