package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/query"
	"github.com/seam-dev/seam/textreport"
)

type diffOptions struct {
	exA, exB int
	json     bool
	exitCode bool
}

func (o *diffOptions) flags(fs *flag.FlagSet) {
	fs.IntVar(&o.exA, "ex", 0, "compare only exchange `N` of A (default: every exchange)")
	fs.IntVar(&o.exB, "ex-b", 0, "with --ex, exchange `M` of B (default: the same number as --ex)")
	fs.BoolVar(&o.json, "json", false, "print the diffs as JSON")
	fs.BoolVar(&o.exitCode, "exit-code", false, "exit 1 when the two differ, as git diff --exit-code")
}

func (o *diffOptions) run(ctx context.Context, e *env, fs *flag.FlagSet) error {
	if fs.NArg() != 2 {
		return &usageError{cmd: "diff", msg: "want two inputs, A and B", example: "seam diff before.ndjson after.ndjson"}
	}
	if o.exA < 0 || o.exB < 0 {
		return &usageError{cmd: "diff", msg: "--ex and --ex-b number exchanges from 1", example: "seam diff --ex 3 before.ndjson after.ndjson"}
	}
	if o.exA == 0 && o.exB != 0 {
		o.exA = 1
	}
	if o.exA == 0 {
		return diffAll(ctx, e, o, fs.Arg(0), fs.Arg(1))
	}
	if o.exB == 0 {
		o.exB = o.exA
	}
	a, err := exchangeReport(ctx, e, fs.Arg(0), o.exA)
	if err != nil {
		return err
	}
	b, err := exchangeReport(ctx, e, fs.Arg(1), o.exB)
	if err != nil {
		return err
	}
	d := inspect.DiffExchangeReports(a, b)
	d.A = fmt.Sprintf("%s#%d", fs.Arg(0), o.exA)
	d.B = fmt.Sprintf("%s#%d", fs.Arg(1), o.exB)
	if o.json {
		err = writeJSON(e.stdout, d)
	} else {
		err = textreport.WriteDiff(e.stdout, d, false)
	}
	if err != nil {
		return err
	}
	if o.exitCode && !d.Equal {
		return errDiffers
	}
	return nil
}

var errDiffers = fmt.Errorf("the inputs differ")

// exchangeReport inspects exchange n of the input at path, reading only
// that exchange's lines.
func exchangeReport(ctx context.Context, e *env, path string, n int) (*inspect.ExchangeReport, error) {
	h, x, _, err := oneExchange(ctx, e, path, n)
	if err != nil {
		return nil, err
	}
	return inspect.NewInspector(path, *h, inspect.Options{NoDiffs: true}).Exchange(x), nil
}

// diffAll compares every exchange of A with the exchange of B that has the
// same number (query.PairByNumber), reading both side by side.
func diffAll(ctx context.Context, e *env, o *diffOptions, pathA, pathB string) error {
	a, err := captures.OpenInspection(ctx, pathA, e.open(), inspect.Options{NoDiffs: true})
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := captures.OpenInspection(ctx, pathB, e.open(), inspect.Options{NoDiffs: true})
	if err != nil {
		return err
	}
	defer b.Close()
	var each func(*inspect.Diff) error
	if !o.json {
		each = func(d *inspect.Diff) error { return textreport.WriteDiff(e.stdout, d, false) }
	}
	out, err := query.DiffByNumber(ctx, pathA, pathB, a.Next, b.Next, o.json, each)
	if err != nil {
		return err
	}
	printWarnings(e, a.Warnings())
	printWarnings(e, b.Warnings())
	if o.json {
		err = writeJSON(e.stdout, out)
	} else {
		err = textreport.WriteDiffSummary(e.stdout, out.Compared, out.OnlyA, out.OnlyB, a.Read(), b.Read())
	}
	if err != nil {
		return err
	}
	if o.exitCode && out.Differs() {
		return errDiffers
	}
	return nil
}
