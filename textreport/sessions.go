package textreport

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/session"
	"github.com/seam-dev/seam/visible"
)

// sessionLine renders where an exchange stands in its session, for the
// text report: "session s1a2b3c4d turn 3 · extends exchange 2 · 6
// messages". Exchanges of the capture named capture are named by number
// alone.
func sessionLine(r *session.Ref, capture string) string {
	name := func(e *session.ExchangeRef) string {
		if e.Capture == capture {
			return "exchange " + strconv.Itoa(e.Ex)
		}
		return visible.String(e.String())
	}
	parts := []string{"session " + r.ID + " turn " + strconv.Itoa(r.Turn)}
	if r.Parent != nil {
		parts = append(parts, "extends "+name(r.Parent))
	}
	if r.Repeats != nil {
		parts = append(parts, "repeats "+name(r.Repeats))
	}
	if r.Continues != "" {
		parts = append(parts, "continues response "+excerpt.Name(r.Continues)+" (not in these captures)")
	}
	parts = append(parts, units.Count(r.Messages, "message"))
	return strings.Join(parts, " · ")
}

// WriteSessions writes the sessions of more than one turn with their
// totals and exchanges, for the text report; nothing when there are none.
func WriteSessions(w io.Writer, ss []*session.Session, color bool) error {
	bw := bufio.NewWriter(w)
	writeSessions(bw, ss, painter(color))
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write sessions: %w", err)
	}
	return nil
}

func writeSessions(w io.Writer, ss []*session.Session, paint func(code, s string) string) {
	n := 0
	for _, s := range ss {
		if s.Turns > 1 {
			n++
		}
	}
	if n == 0 {
		return
	}
	fmt.Fprintln(w, paint(ansiBold, "== sessions of more than one turn: "+strconv.Itoa(n)))
	for _, s := range ss {
		if s.Turns < 2 {
			continue
		}
		fmt.Fprintf(w, "   %s  %s\n", s.ID, SessionSummary(s))
		var exs []string
		for _, e := range s.Exchanges {
			exs = append(exs, visible.String(e.String()))
		}
		fmt.Fprintf(w, "     exchanges %s\n", strings.Join(exs, " "))
	}
	fmt.Fprintln(w)
}

// SessionSummary renders a session's totals on one line: "6 turns · 5
// tool calls · tokens in 2100 out 210 · 1.48s · 1 rewrite".
func SessionSummary(s *session.Session) string {
	parts := []string{units.Count(s.Turns, "turn"), units.Count(s.ToolCalls, "tool call")}
	if s.UsageTurns > 0 {
		parts = append(parts, fmt.Sprintf("tokens in %d out %d", s.TokensIn, s.TokensOut))
	}
	if s.Dur >= 0 {
		parts = append(parts, units.Duration(s.Dur))
	}
	if s.Failed > 0 {
		parts = append(parts, strconv.Itoa(s.Failed)+" failed")
	}
	if s.Rewrites > 0 {
		parts = append(parts, units.Count(s.Rewrites, "rewrite"))
	}
	if len(s.Models) > 0 {
		var ms []string
		for _, m := range s.Models {
			ms = append(ms, visible.String(m))
		}
		parts = append(parts, "models "+strings.Join(ms, ", "))
	}
	return strings.Join(parts, " · ")
}
