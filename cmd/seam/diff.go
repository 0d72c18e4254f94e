package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/textreport"
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
		help:    diffHelp,
		example: "seam diff before.ndjson after.ndjson\n  seam diff --ex 3 --ex-b 4 capture.ndjson capture.ndjson",
		new:     func() runner { return &diffOptions{} },
	}
}

// diffHelp is the text of "seam help diff".
const diffHelp = `
Assembles the client side of exchanges in A and B (captures or raw
recordings) and prints a text diff of the results with +/- gutters; each
hunk says the event, chunk, byte offset and time in B where it begins.

By default every exchange of A is compared with the exchange of B that has
the same number, and the last line says which pairs were compared and which
exchanges have no counterpart. --ex (and --ex-b) compare one pair; A and B
may then be the same file with different --ex and --ex-b.

--json prints one diff object with --ex, else {"pairs": [diff, …],
"only_a": [ex, …], "only_b": [ex, …]}. --exit-code exits 1 when any pair
differs or an exchange has no counterpart.`

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

// diffPairs is the JSON form of seam diff over every exchange pair.
type diffPairs struct {
	Pairs []*inspect.Diff `json:"pairs"`
	OnlyA []int           `json:"only_a,omitempty"`
	OnlyB []int           `json:"only_b,omitempty"`
}

// reportStream inspects the exchanges of one input as they are read.
type reportStream struct {
	path string
	src  *captures.Source
	in   *inspect.Inspector
	done bool
	n    int // exchanges read
}

func openReportStream(ctx context.Context, e *env, path string) (*reportStream, func(), error) {
	src, err := captures.Open(ctx, path, e.open())
	if err != nil {
		return nil, nil, err
	}
	return &reportStream{path: path, src: src, in: inspect.NewInspector(path, *src.Header(), inspect.Options{NoDiffs: true})}, src.Close, nil
}

// next returns the next exchange's report, or nil at the end.
func (s *reportStream) next() (*inspect.ExchangeReport, error) {
	if s.done {
		return nil, nil
	}
	x, err := s.src.Next()
	if err == io.EOF {
		s.done = true
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s.n++
	return s.in.Exchange(x), nil
}

// diffAll compares every exchange of A with the exchange of B that has the
// same number. Both inputs are read exchange by exchange, side by side, so
// only the exchanges still waiting for their counterpart are held (none,
// when both number theirs in the same order).
func diffAll(ctx context.Context, e *env, o *diffOptions, pathA, pathB string) error {
	a, closeA, err := openReportStream(ctx, e, pathA)
	if err != nil {
		return err
	}
	defer closeA()
	b, closeB, err := openReportStream(ctx, e, pathB)
	if err != nil {
		return err
	}
	defer closeB()
	d := &diffRun{e: e, o: o, pathA: pathA, pathB: pathB, out: diffPairs{Pairs: []*inspect.Diff{}}}
	p := &numberPairs{waitA: map[int]*inspect.ExchangeReport{}, waitB: map[int]*inspect.ExchangeReport{}, compared: map[int]bool{}, pair: d.pair}
	for !a.done || !b.done {
		if err := ctx.Err(); err != nil {
			return err
		}
		ra, err := a.next()
		if err != nil {
			return err
		}
		if err := p.take(ra, true); err != nil {
			return err
		}
		rb, err := b.next()
		if err != nil {
			return err
		}
		if err := p.take(rb, false); err != nil {
			return err
		}
	}
	printWarnings(e, a.src.Warnings())
	printWarnings(e, b.src.Warnings())
	d.out.OnlyA, d.out.OnlyB = sortedKeys(p.waitA), sortedKeys(p.waitB)
	return d.finish(a.n, b.n)
}

// numberPairs pairs the exchange reports of two inputs by number as they
// are read, each kept waiting until its counterpart comes.
type numberPairs struct {
	waitA, waitB map[int]*inspect.ExchangeReport
	compared     map[int]bool
	pair         func(a, b *inspect.ExchangeReport) error
}

// take files a report of side A (aSide) or B: paired with the other
// side's exchange of the same number when it was read, else kept waiting.
// A continuation of an exchange already compared is not compared again.
func (p *numberPairs) take(r *inspect.ExchangeReport, aSide bool) error {
	if r == nil || p.compared[r.Ex] {
		return nil
	}
	wait, other := p.waitA, p.waitB
	if !aSide {
		wait, other = other, wait
	}
	y, ok := other[r.Ex]
	if !ok {
		if _, dup := wait[r.Ex]; !dup {
			wait[r.Ex] = r
		}
		return nil
	}
	delete(other, r.Ex)
	p.compared[r.Ex] = true
	if aSide {
		return p.pair(r, y)
	}
	return p.pair(y, r)
}

// diffRun writes the diffs of seam diff over every exchange pair.
type diffRun struct {
	e            *env
	o            *diffOptions
	pathA, pathB string
	out          diffPairs
	order        []string // the exchanges compared, in order
	differ       bool
}

// pair diffs exchange x of A with y of B.
func (d *diffRun) pair(x, y *inspect.ExchangeReport) error {
	diff := inspect.DiffExchangeReports(x, y)
	diff.A, diff.B = d.pathA+"#"+strconv.Itoa(x.Ex), d.pathB+"#"+strconv.Itoa(y.Ex)
	d.differ = d.differ || !diff.Equal
	d.order = append(d.order, strconv.Itoa(x.Ex))
	if d.o.json {
		d.out.Pairs = append(d.out.Pairs, diff)
		return nil
	}
	return textreport.WriteDiff(d.e.stdout, diff, false)
}

// finish writes the JSON document, or the line saying what was compared,
// A having na exchanges and B nb.
func (d *diffRun) finish(na, nb int) error {
	differ := d.differ || len(d.out.OnlyA)+len(d.out.OnlyB) > 0
	var err error
	if d.o.json {
		err = writeJSON(d.e.stdout, d.out)
	} else {
		err = writeDiffSummary(d.e, d.out, d.order, na, nb)
	}
	if err != nil {
		return err
	}
	if d.o.exitCode && differ {
		return errDiffers
	}
	return nil
}

func sortedKeys(m map[int]*inspect.ExchangeReport) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// writeDiffSummary says which exchanges were compared and which have no
// counterpart.
func writeDiffSummary(e *env, out diffPairs, compared []string, na, nb int) error {
	what := "no exchange: none has the same number in A and B"
	switch {
	case len(compared) == 1:
		what = "exchange " + compared[0] + " of A with the same number in B"
	case len(compared) > 1:
		what = "exchanges " + strings.Join(compared, ", ") + " of A with the same numbers in B"
	}
	if _, err := fmt.Fprintf(e.stdout, "compared %s (A has %s, B has %d)\n", what, plural(na, "exchange"), nb); err != nil {
		return err
	}
	if len(out.OnlyA) > 0 {
		fmt.Fprintf(e.stdout, "only in A: exchange %s\n", joinInts(out.OnlyA))
	}
	if len(out.OnlyB) > 0 {
		fmt.Fprintf(e.stdout, "only in B: exchange %s\n", joinInts(out.OnlyB))
	}
	return nil
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
