package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible"
)

type statsOptions struct {
	by    string
	stall time.Duration
	where string
	json  bool
}

func statsCommand() *command {
	return &command{
		name:    "stats",
		summary: "figures across captures: outcomes, TTFB and gap percentiles, stalls, tokens, findings",
		usage:   "seam stats [--by KEYS] [--stall D] [--where FILTER] [--json] DIR|CAPTURE...",
		help:    statsHelp,
		example: "seam stats --by model captures/",
		new:     func() runner { return &statsOptions{} },
	}
}

// statsHelp is the text of "seam help stats".
var statsHelp = `
Reads every capture given (a directory stands for the captures in it and
below it) and adds up its exchanges by model and endpoint, or by what --by
names (a comma-separated list of ` + strings.Join(inspect.StatsKeys(), ", ") + `):

  n         exchanges
  ok, fail  how the side clients received ended: complete or closed after
            the end, or not (aborted, truncated, timeout, upstream error,
            an HTTP error status)
  ttfb      request to first byte: p50, p90, p99
  gap       every gap between two chunks clients received: p50, p99, max
  stalls    gaps longer than --stall, and the exchanges with any
  in, out   tokens, where the stream reports usage
  tok/s     output tokens over the time from first to last chunk of the
            exchanges that report usage and came in more than one chunk
  findings  by detector id, listed under the table

Percentiles are nearest-rank: the smallest value at least that share of
the values is at most. They are exact up to 4096 values per group, and
within 0.5% past that (a histogram keeps memory bounded). The table fits
the terminal by leaving columns out; --json has every figure
({"by", "stall_ns", "captures", "exchanges", "groups": [Group], "total":
Group, and with --by session "sessions"}: the groups as inspect.StatsGroup
documents them). --where counts only the exchanges a filter selects (seam help where). Sessions are
linked across the captures in the order given, a directory's in the order
they were recorded (their headers' start times).`

func (o *statsOptions) flags(fs *flag.FlagSet) {
	fs.StringVar(&o.by, "by", "model,endpoint", "group by `keys`: "+strings.Join(inspect.StatsKeys(), ", "))
	fs.DurationVar(&o.stall, "stall", inspect.DefaultStall, "count gaps between chunks longer than `duration` as stalls")
	fs.StringVar(&o.where, "where", "", "count only the exchanges `filter` selects (seam help where)")
	fs.BoolVar(&o.json, "json", false, "print the figures as JSON")
}

func (o *statsOptions) run(ctx context.Context, e *env, fs *flag.FlagSet) error {
	const ex = "seam stats --by model captures/"
	if fs.NArg() == 0 {
		return &usageError{cmd: "stats", msg: "no captures given", example: ex}
	}
	if o.stall <= 0 {
		return &usageError{cmd: "stats", msg: "--stall must be more than 0", example: "seam stats --stall 2s captures/"}
	}
	var by []string
	for _, k := range strings.Split(o.by, ",") {
		if k = strings.TrimSpace(k); k != "" {
			by = append(by, k)
		}
	}
	st, err := inspect.NewStats(by, o.stall)
	if err != nil {
		return &usageError{cmd: "stats", msg: "--by: " + err.Error(), example: ex}
	}
	where, err := parseWhere("stats", o.where)
	if err != nil {
		return err
	}
	paths, err := captures.Expand(ctx, fs.Args(), e.open())
	if err != nil {
		return err
	}
	sessions := inspect.NewSessions()
	iopts := inspect.Options{NoDiffs: true, Stall: o.stall, Sessions: sessions}
	err = inspectInputs(ctx, e, paths, "stats", iopts, func(src *input, x *tape.Exchange, rep *inspect.ExchangeReport) error {
		if where.Empty() || where.Match(rowOf(src, x, rep)) {
			st.Add(src.path, &src.header, x, rep)
		}
		return nil
	})
	if err != nil {
		return err
	}
	groups, total := st.Groups(), st.Total()
	var ss []*inspect.Session
	if slices.Contains(by, "session") {
		for _, s := range sessions.List() {
			for _, g := range groups {
				if g.Key["session"] == s.ID {
					ss = append(ss, s)
					break
				}
			}
		}
	}
	if o.json {
		return writeJSON(e.stdout, struct {
			By        []string              `json:"by"`
			StallNs   int64                 `json:"stall_ns"`
			Captures  int                   `json:"captures"`
			Exchanges int                   `json:"exchanges"`
			Groups    []*inspect.StatsGroup `json:"groups"`
			Total     *inspect.StatsGroup   `json:"total"`
			Sessions  []*inspect.Session    `json:"sessions,omitempty"`
		}{by, int64(o.stall), len(paths), total.Exchanges, groups, total, ss})
	}
	return writeStatsText(e, by, o.stall, len(paths), groups, total, ss)
}

// writeStatsText prints the figures as a table that fits the terminal,
// then the findings by id per group.
func writeStatsText(e *env, by []string, stall time.Duration, captures int, groups []*inspect.StatsGroup, total *inspect.StatsGroup, ss []*inspect.Session) error {
	w := e.stdout
	fmt.Fprintf(w, "%s, %s · by %s · stalls are gaps over %s\n\n", plural(captures, "capture"), plural(total.Exchanges, "exchange"),
		strings.Join(by, ", "), inspect.FormatDuration(int64(stall)))
	if total.Exchanges == 0 {
		fmt.Fprintln(w, "no exchange to count")
		return nil
	}
	t := &table{}
	for _, k := range by {
		t.cols = append(t.cols, column{head: k, shrink: true})
	}
	t.cols = append(t.cols,
		column{head: "n", right: true}, column{head: "ok", right: true, drop: 3}, column{head: "fail", right: true},
		column{head: "ttfb p50", right: true}, column{head: "ttfb p90", right: true, drop: 6}, column{head: "ttfb p99", right: true},
		column{head: "gap p50", right: true, drop: 7}, column{head: "gap p99", right: true, drop: 4}, column{head: "gap max", right: true},
		column{head: "stalls", right: true}, column{head: "in", right: true, drop: 9}, column{head: "out", right: true, drop: 8},
		column{head: "tok/s", right: true, drop: 5})
	row := func(keys []string, g *inspect.StatsGroup) {
		d := func(s inspect.Summary, v int64) string {
			if s.N == 0 {
				return "-"
			}
			return inspect.FormatDuration(v)
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
		cells := append(keys, strconv.Itoa(g.Exchanges), strconv.Itoa(g.Exchanges-g.Failed), strconv.Itoa(g.Failed),
			d(g.TTFB, g.TTFB.P50), d(g.TTFB, g.TTFB.P90), d(g.TTFB, g.TTFB.P99),
			d(g.Gap, g.Gap.P50), d(g.Gap, g.Gap.P99), d(g.Gap, g.Gap.Max),
			stalls, usage(g.TokensIn), usage(g.TokensOut), rate)
		t.add(cells...)
	}
	for _, g := range groups {
		var keys []string
		for _, k := range by {
			keys = append(keys, visible.String(g.Key[k]))
		}
		row(keys, g)
	}
	if len(groups) > 1 {
		keys := make([]string, len(by))
		keys[0] = "all"
		row(keys, total)
	}
	if err := t.write(w, termWidth(e, w)); err != nil {
		return err
	}
	var lines []string
	for _, g := range append(groups, total) {
		if len(g.Findings) == 0 || (g == total && len(groups) == 1) {
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
		if g != total {
			var keys []string
			for _, k := range by {
				keys = append(keys, visible.String(g.Key[k]))
			}
			name = strings.Join(keys, " ")
		}
		for i := range parts[:len(parts)-1] {
			parts[i] += ","
		}
		lines = append(lines, wrapWords(parts, termWidth(e, w), "  "+name+": ", "    "))
	}
	if len(lines) > 0 {
		fmt.Fprintf(w, "\nfindings by id\n%s", strings.Join(lines, ""))
	}
	if len(ss) > 0 {
		fmt.Fprintln(w, "\nsessions")
		for _, s := range ss {
			fmt.Fprintf(w, "  %s  %s\n", s.ID, s.Summary())
		}
	}
	return nil
}
