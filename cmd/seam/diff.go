package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/seam-dev/seam/inspect"
)

type diffOptions struct {
	exA, exB int
	json     bool
	exitCode bool
}

func diffCommand() *command {
	return &command{
		name:    "diff",
		summary: "diff the assembled output of two exchanges or captures",
		usage:   "seam diff [--ex N] [--ex-b M] A B",
		help: `
Assembles the client side of an exchange in A and one in B (captures or raw
recordings) and prints a text diff of the results with +/- gutters; each
hunk says the event, chunk, byte offset and time in B where it begins.
A and B may be the same file with different --ex and --ex-b. By default the
first exchange of each is compared.`,
		example: "seam diff --ex 3 --ex-b 3 before.ndjson after.ndjson",
		flags: func(fs *flag.FlagSet) any {
			o := &diffOptions{}
			fs.IntVar(&o.exA, "ex", 1, "exchange `N` of A")
			fs.IntVar(&o.exB, "ex-b", 0, "exchange `M` of B (default: the same number as --ex)")
			fs.BoolVar(&o.json, "json", false, "print the diff as JSON")
			fs.BoolVar(&o.exitCode, "exit-code", false, "exit 1 when the two differ, as git diff --exit-code")
			return o
		},
		run: runDiff,
	}
}

func runDiff(_ context.Context, e *env, fs *flag.FlagSet, opts any) error {
	o := opts.(*diffOptions)
	if fs.NArg() != 2 {
		return &usageError{cmd: "diff", msg: "want two inputs, A and B", example: "seam diff before.ndjson after.ndjson"}
	}
	if o.exB == 0 {
		o.exB = o.exA
	}
	a, err := exchangeReport(e, fs.Arg(0), o.exA)
	if err != nil {
		return err
	}
	b, err := exchangeReport(e, fs.Arg(1), o.exB)
	if err != nil {
		return err
	}
	d := inspect.DiffExchangeReports(a, b)
	d.A = fmt.Sprintf("%s#%d", fs.Arg(0), o.exA)
	d.B = fmt.Sprintf("%s#%d", fs.Arg(1), o.exB)
	if o.json {
		err = writeJSON(e.stdout, d)
	} else {
		err = inspect.WriteDiff(e.stdout, d, false)
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
func exchangeReport(e *env, path string, n int) (*inspect.ExchangeReport, error) {
	h, x, err := oneExchange(e, path, n)
	if err != nil {
		return nil, err
	}
	return inspect.NewInspector(path, *h, inspect.Options{NoDiffs: true}).Exchange(x), nil
}
