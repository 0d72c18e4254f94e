package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/query"
	"github.com/seam-dev/seam/session"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/textreport"
	"github.com/seam-dev/seam/visible"
)

type grepOptions struct {
	ignoreCase bool
	fixed      bool
	in         string
	where      string
	list       bool
	json       bool
	color      colorFlag
}

// errNoMatch reports that seam grep found nothing: exit status 1, as grep.
var errNoMatch = errors.New("no match")

func (o *grepOptions) flags(fs *flag.FlagSet) {
	fs.BoolVar(&o.ignoreCase, "i", false, "ignore case")
	fs.BoolVar(&o.fixed, "F", false, "PATTERN is a fixed string, not a regular expression")
	fs.StringVar(&o.in, "in", "text,tools,request,headers", "search only these `scopes`: text, tools, request, headers")
	fs.StringVar(&o.where, "where", "", "search only the exchanges `filter` selects (seam help where)")
	fs.BoolVar(&o.list, "l", false, "print each matching exchange once (capture#ex)")
	fs.BoolVar(&o.json, "json", false, "print one JSON object per match, one per line")
	fs.Var(&o.color, "color", "colour: auto, always or never (NO_COLOR turns auto off)")
}

func (o *grepOptions) run(ctx context.Context, e *env, fs *flag.FlagSet) error {
	const ex = "seam grep -i 'use_tool<' captures/"
	if fs.NArg() < 2 {
		return &usageError{cmd: "grep", msg: "want a pattern and at least one capture or directory", example: ex}
	}
	re, err := query.CompilePattern(fs.Arg(0), o.fixed, o.ignoreCase)
	if err != nil {
		return &usageError{cmd: "grep", msg: "pattern: " + err.Error() + " (-F searches for a fixed string)", example: ex}
	}
	scopes, err := query.ParseScopes(o.in)
	if err != nil {
		return &usageError{cmd: "grep", msg: "--in: " + err.Error(), example: "seam grep --in text,tools PATTERN captures/"}
	}
	where, err := parseWhere("grep", o.where)
	if err != nil {
		return err
	}
	paths, err := captures.Expand(ctx, fs.Args()[1:], e.open())
	if err != nil {
		return err
	}
	color := !o.json && o.color.enabled(e, e.stdout)
	iopts := inspect.Options{AssembleOnly: !where.Uses("finding", "severity"), NoDiffs: true, Sessions: session.NewLinker()}
	out := bufio.NewWriterSize(e.stdout, 64<<10)
	matched := 0
	err = inspectInputs(ctx, e, paths, "grep", iopts, func(src *input, x *tape.Exchange, rep *inspect.ExchangeReport) error {
		if !where.Empty() && !where.Match(rowOf(src, x, rep)) {
			return nil
		}
		ms := query.Search(re, x, rep, scopes)
		if len(ms) == 0 {
			return nil
		}
		matched += len(ms)
		loc := fmt.Sprintf("%s#%d", visible.String(src.path), x.Ex)
		if o.list {
			_, err := fmt.Fprintln(out, loc)
			return err
		}
		for _, m := range ms {
			if o.json {
				if err := textreport.WriteMatchJSON(out, src.path, m); err != nil {
					return err
				}
				continue
			}
			textreport.WriteMatch(out, loc, m, color)
		}
		return nil
	})
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("write: %w", ferr)
	}
	if err != nil {
		return err
	}
	if matched == 0 {
		return errNoMatch
	}
	return nil
}
