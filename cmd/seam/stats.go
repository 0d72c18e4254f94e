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
	st, err := query.NewStats(query.ParseKeys(o.by), o.stall)
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
