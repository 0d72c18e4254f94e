package main

import (
	"context"
	"fmt"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/query"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/textreport"
	"github.com/seam-dev/seam/tui"
	"github.com/seam-dev/seam/visible"
)

// open is how seam's commands open inputs: "-" reads stdin, and what a
// directory walk skips and the problems a reader skipped are said on
// stderr.
func (e *env) open() captures.Options {
	return captures.Options{
		Stdin:  e.stdin,
		Note:   func(msg string) { fmt.Fprintf(e.stderr, "seam: note: %s\n", msg) },
		Warn:   func(w error) { printWarnings(e, []error{w}) },
		Bucket: e.bucketStore(),
	}
}

// printWarnings prints a capture's skipped problems on stderr.
func printWarnings(e *env, ws []error) {
	for _, w := range ws {
		fmt.Fprintf(e.stderr, "warning: %s\n", visible.String(w.Error()))
	}
}

// input names the capture an exchange came from: its path and header.
type input struct {
	path   string
	header tape.Header
	read   *tape.Header // the header it was copied from
}

// inspectInputs is inspectSome reporting every exchange.
func inspectInputs(ctx context.Context, e *env, paths []string, label string, opts inspect.Options, fn func(in *input, x *tape.Exchange, rep *inspect.ExchangeReport) error) error {
	return inspectSome(ctx, e, paths, label, opts, nil, fn)
}

// inspectSome reads and inspects the inputs in paths with
// captures.InspectAll (want selecting the exchanges reported), with
// decode warnings on stderr after each input, and a progress line too
// when stderr is a terminal and the run is long.
func inspectSome(ctx context.Context, e *env, paths []string, label string, opts inspect.Options, want func(path string, ex int) bool, fn func(in *input, x *tape.Exchange, rep *inspect.ExchangeReport) error) error {
	batchGC(e)
	p := textreport.NewProgress(e.stderr, tui.IsTerminal(e.stderr), label, len(paths), captures.Size(paths))
	defer p.Done()
	o := e.open()
	o.Progress = p
	var in *input
	return captures.InspectAll(ctx, paths, o, opts, want, func(i captures.Inspected) error {
		if in == nil || in.read != i.Header {
			in = &input{path: i.Path, header: *i.Header, read: i.Header}
		}
		return fn(in, i.X, i.Report)
	})
}

// rowOf is what a --where filter reads of an inspected exchange.
func rowOf(src *input, x *tape.Exchange, rep *inspect.ExchangeReport) *query.Row {
	var reqT int64
	if x.Request != nil {
		reqT = x.Request.T
	}
	return query.RowOf(src.path, src.header.Started, reqT, rep, func() string { return query.SearchText(x, rep) })
}

// parseWhere parses --where for command cmd; a mistake is a usage error.
func parseWhere(cmd, expr string) (*query.Filter, error) {
	f, err := query.ParseFilter(expr)
	if err != nil {
		return nil, &usageError{cmd: cmd, msg: "--where: " + err.Error(), example: "seam " + cmd + " --where 'model=gpt-5* outcome!=complete' captures/"}
	}
	return f, nil
}

// oneExchange reads exchange n of the input at path, gathering only its
// lines, and returns it with the capture's header and notes.
func oneExchange(ctx context.Context, e *env, path string, n int) (*tape.Header, *tape.Exchange, []tape.Note, error) {
	src, err := captures.Open(ctx, path, e.open())
	if err != nil {
		return nil, nil, nil, err
	}
	defer src.Close()
	x, err := src.Find(n)
	if err != nil {
		return nil, nil, nil, err
	}
	return src.Header(), x, src.Notes(), nil
}
