package main

import (
	"context"
	"flag"
	"strings"
	"time"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/query"
	"github.com/seam-dev/seam/session"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/textreport"
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
Reads every capture given (a directory, or an s3://bucket/prefix, stands
for the captures in it and below it) and adds up its exchanges by model and endpoint, or by what --by
names (a comma-separated list of ` + strings.Join(query.StatsKeys(), ", ") + `):

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
Group, and with --by session "sessions"}: the groups as query.StatsGroup
documents them). --where counts only the exchanges a filter selects (seam help where). Sessions are
linked across the captures in the order given, a directory's in the order
they were recorded (their headers' start times).`

func (o *statsOptions) flags(fs *flag.FlagSet) {
	fs.StringVar(&o.by, "by", "model,endpoint", "group by `keys`: "+strings.Join(query.StatsKeys(), ", "))
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
	st, err := query.NewStats(by, o.stall)
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
	sessions := session.NewLinker()
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
	r := st.Report(len(paths), sessions.List())
	if o.json {
		return writeJSON(e.stdout, r)
	}
	return textreport.WriteStats(e.stdout, termWidth(e, e.stdout), textreport.Stats{By: r.By, Stall: r.Stall, Captures: r.Captures, Groups: r.Groups, Total: r.Total, Sessions: r.Sessions})
}
