package query

import (
	"slices"
	"time"

	"github.com/seam-dev/seam/session"
)

// StatsReport is the figures of a Stats as one document: seam stats
// --json writes it.
type StatsReport struct {
	By        []string      `json:"by"`
	Stall     time.Duration `json:"stall_ns"`
	Captures  int           `json:"captures"`
	Exchanges int           `json:"exchanges"`
	Groups    []*StatsGroup `json:"groups"`
	Total     *StatsGroup   `json:"total"`
	// Sessions are, grouped by session, the sessions that are groups.
	Sessions []*session.Session `json:"sessions,omitempty"`
}

// Report returns the figures added from captures inputs, with the
// sessions of linked that are groups when s groups by session.
func (s *Stats) Report(captures int, linked []*session.Session) *StatsReport {
	r := &StatsReport{By: s.by, Stall: s.stall, Captures: captures, Groups: s.Groups(), Total: s.Total()}
	r.Exchanges = r.Total.Exchanges
	if !slices.Contains(s.by, "session") {
		return r
	}
	for _, ss := range linked {
		for _, g := range r.Groups {
			if g.Key["session"] == ss.ID {
				r.Sessions = append(r.Sessions, ss)
				break
			}
		}
	}
	return r
}
