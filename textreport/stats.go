package textreport

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/query"
	"github.com/seam-dev/seam/session"
	"github.com/seam-dev/seam/visible"
)

// Stats is what seam stats found across captures.
type Stats struct {
	// By are the keys the exchanges are grouped by.
	By []string
	// Stall is the gap counted as a stall.
	Stall    time.Duration
	Captures int
	Groups   []*query.StatsGroup
	Total    *query.StatsGroup
	// Sessions are those the groups name, with --by session.
	Sessions []*session.Session
}

// WriteStats writes the figures as a table that fits width cells (no
// limit when 0), then the findings by id per group and the sessions.
func WriteStats(w io.Writer, width int, s Stats) error {
	fmt.Fprintf(w, "%s, %s · by %s · stalls are gaps over %s\n\n", units.Count(s.Captures, "capture"), units.Count(s.Total.Exchanges, "exchange"),
		strings.Join(s.By, ", "), units.Duration(int64(s.Stall)))
	if s.Total.Exchanges == 0 {
		fmt.Fprintln(w, "no exchange to count")
		return nil
	}
	t := statsTable(s.By)
	for _, g := range s.Groups {
		t.Add(statsRow(groupKeys(s.By, g), g)...)
	}
	if len(s.Groups) > 1 {
		keys := make([]string, len(s.By))
		keys[0] = "all"
		t.Add(statsRow(keys, s.Total)...)
	}
	if err := t.Write(w, width); err != nil {
		return err
	}
	if lines := findingsByID(s, width); len(lines) > 0 {
		fmt.Fprintf(w, "\nfindings by id\n%s", strings.Join(lines, ""))
	}
	if len(s.Sessions) > 0 {
		fmt.Fprintln(w, "\nsessions")
		for _, ss := range s.Sessions {
			fmt.Fprintf(w, "  %s  %s\n", ss.ID, SessionSummary(ss))
		}
	}
	return nil
}

// statsTable is the table of seam stats: a column per key, then the
// figures.
func statsTable(by []string) *Table {
	t := &Table{}
	for _, k := range by {
		t.Cols = append(t.Cols, Column{Head: k, Shrink: true})
	}
	t.Cols = append(t.Cols,
		Column{Head: "n", Right: true}, Column{Head: "ok", Right: true, Drop: 3}, Column{Head: "fail", Right: true},
		Column{Head: "ttfb p50", Right: true}, Column{Head: "ttfb p90", Right: true, Drop: 6}, Column{Head: "ttfb p99", Right: true},
		Column{Head: "gap p50", Right: true, Drop: 7}, Column{Head: "gap p99", Right: true, Drop: 4}, Column{Head: "gap max", Right: true},
		Column{Head: "stalls", Right: true}, Column{Head: "in", Right: true, Drop: 9}, Column{Head: "out", Right: true, Drop: 8},
		Column{Head: "tok/s", Right: true, Drop: 5})
	return t
}

// groupKeys are the cells naming group g.
func groupKeys(by []string, g *query.StatsGroup) []string {
	var keys []string
	for _, k := range by {
		keys = append(keys, visible.String(g.Key[k]))
	}
	return keys
}

// statsRow is the row of group g, named by keys.
func statsRow(keys []string, g *query.StatsGroup) []string {
	d := func(s query.Summary, v int64) string {
		if s.N == 0 {
			return "-"
		}
		return units.Duration(v)
	}
	usage := func(n int) string {
		if g.UsageExchanges == 0 {
			return "-"
		}
		return strconv.Itoa(n)
	}
	rate := "-"
	if g.TokensPerS > 0 {
		rate = fmt.Sprintf("%.1f", g.TokensPerS)
	}
	stalls := strconv.Itoa(g.Stalls)
	if g.Stalls > 0 {
		stalls += " (" + strconv.Itoa(g.StalledExchanges) + " ex)"
	}
	return append(keys, strconv.Itoa(g.Exchanges), strconv.Itoa(g.Exchanges-g.Failed), strconv.Itoa(g.Failed),
		d(g.TTFB, g.TTFB.P50), d(g.TTFB, g.TTFB.P90), d(g.TTFB, g.TTFB.P99),
		d(g.Gap, g.Gap.P50), d(g.Gap, g.Gap.P99), d(g.Gap, g.Gap.Max),
		stalls, usage(g.TokensIn), usage(g.TokensOut), rate)
}

// findingsByID lists, per group and for all of them, the findings by id,
// the most frequent first, wrapped to width.
func findingsByID(s Stats, width int) []string {
	var lines []string
	for _, g := range append(s.Groups, s.Total) {
		if len(g.Findings) == 0 || (g == s.Total && len(s.Groups) == 1) {
			continue
		}
		ids := slices.SortedFunc(maps.Keys(g.Findings), func(a, b string) int {
			if c := g.Findings[b] - g.Findings[a]; c != 0 {
				return c
			}
			return strings.Compare(a, b)
		})
		var parts []string
		for _, id := range ids {
			parts = append(parts, fmt.Sprintf("%s ×%d", visible.String(id), g.Findings[id]))
		}
		name := "all"
		if g != s.Total {
			name = strings.Join(groupKeys(s.By, g), " ")
		}
		for i := range parts[:len(parts)-1] {
			parts[i] += ","
		}
		lines = append(lines, WrapWords(parts, width, "  "+name+": ", "    "))
	}
	return lines
}
