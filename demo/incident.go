package demo

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/shape"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/textreport"
)

// printInspectSummary prints one line per exchange: what the client side
// assembled to and how many findings of each severity inspect made.
func printInspectSummary(w io.Writer, r *inspect.Report) {
	fmt.Fprintf(w, "\ninspect:\n")
	for _, x := range r.Exchanges {
		fmt.Fprintf(w, "  #%d %-19s %s · %s\n", x.Ex, x.Protocol, assembled(x), findingCounts(x.Findings))
		for _, line := range explain(x.Findings) {
			fmt.Fprintf(w, "     %s\n", line)
		}
	}
}

// explain says what each warning or error among fs is, once per
// detector, so a count in the summary never stands unexplained: the
// detector's id, what it catches, and whether the upstream's own bytes
// carry it (then it is the recorded stream's, not the proxy's doing).
func explain(fs []inspect.Finding) []string {
	catches := map[string]string{}
	for _, d := range inspect.Detectors() {
		catches[d.ID] = d.Summary
	}
	upstream := map[string]bool{}
	for _, f := range fs {
		if f.Pointer.Side == tape.Upstream {
			upstream[f.ID] = true
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range fs {
		if f.Severity < inspect.Warn || seen[f.ID] {
			continue
		}
		seen[f.ID] = true
		where := ""
		if upstream[f.ID] {
			where = " (in the upstream's own bytes: the recorded stream is so)"
		}
		out = append(out, fmt.Sprintf("%s %s%s:", f.Severity, f.ID, where), "  "+excerpt.Clip(catches[f.ID], 72))
	}
	return out
}

// assembled says briefly what the client side of x assembled to.
func assembled(x *inspect.ExchangeReport) string {
	var m *protocol.Message
	for _, s := range x.Sides {
		if s.Side == tape.Client || m == nil {
			m = s.Message
		}
	}
	if m == nil || len(m.Choices) == 0 {
		return "nothing assembled"
	}
	c := m.Choices[0]
	var parts []string
	if c.Text != "" {
		parts = append(parts, fmt.Sprintf("text %q", excerpt.Clip(c.Text, 36)))
	}
	for _, tc := range c.ToolCalls {
		parts = append(parts, "tool "+tc.Name)
	}
	if c.FinishReason != "" {
		parts = append(parts, "finish "+c.FinishReason)
	}
	return strings.Join(parts, ", ")
}

func findingCounts(fs []inspect.Finding) string {
	n := map[inspect.Severity]int{}
	for _, f := range fs {
		n[f.Severity]++
	}
	if n[inspect.Error]+n[inspect.Warn] == 0 {
		return "no errors or warnings"
	}
	var parts []string
	for _, s := range slices.Backward(slices.Sorted(maps.Keys(n))) {
		if s >= inspect.Warn {
			noun := map[inspect.Severity]string{inspect.Warn: "warning", inspect.Error: "error"}[s]
			if n[s] != 1 {
				noun += "s"
			}
			parts = append(parts, fmt.Sprintf("%d %s", n[s], noun))
		}
	}
	return strings.Join(parts, ", ")
}

// showIncident inspects the incident capture recorded with the pre-fix
// engine, then replays it with holdback on and shows the difference.
func showIncident(ctx context.Context, w io.Writer, o Options, c *tape.Capture, path string) error {
	x := c.Exchanges[0]
	rep := inspect.Inspect(c, inspect.Options{NoDiffs: true})
	deltas := 0
	for _, s := range rep.Exchanges[0].Sides {
		if s.Side == tape.Upstream {
			deltas = s.Events
		}
	}
	fmt.Fprintf(w, "\nthe incident: the real Codex token stream of an Obsidian tool call (%d events),\nrecorded through the engine %s:\n", deltas, shape.Summary(c.Header.Engine))
	for _, f := range rep.Exchanges[0].Findings {
		if f.Severity == inspect.Error {
			fmt.Fprintf(w, "  %s %s\n    evidence %q\n    at %s\n", f.Severity, f.ID, f.Evidence, f.Pointer)
		}
	}

	fixed, err := shape.Resolve(c.Header.Engine.Profile, map[string]string{shape.SwHoldback: "on"})
	if err != nil {
		return err
	}
	res, err := replay.Exchange(ctx, x, fixed, replay.Options{})
	if err != nil {
		return err
	}
	rx := res.ToExchange(x)
	after := inspect.Inspect(&tape.Capture{Name: "replay", Exchanges: []*tape.Exchange{rx}}, inspect.Options{NoDiffs: true})
	fmt.Fprintf(w, "\nreplayed offline with %s: %s\n", shape.Summary(fixed), findingCounts(after.Exchanges[0].Findings))
	d := inspect.DiffExchangeReports(rep.Exchanges[0], after.Exchanges[0])
	d.A, d.B = "client text, holdback=off", "client text, holdback=on"
	if err := textreport.WriteDiff(w, textreport.ShortenDiff(d, 3, 5), false); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nnext:\n  %s\n  %s\n  %s\n", o.Hint("inspect", path), o.Hint("replay", "--set", "holdback=on", path), o.Hint("tui", path))
	return nil
}
