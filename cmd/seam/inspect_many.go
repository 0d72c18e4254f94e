package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/junit"
	"github.com/seam-dev/seam/internal/shellquote"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/session"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/textreport"
)

// exFlag is --ex: N, or CAPTURE#N among several captures.
type exFlag = captures.Ref

// inspectMany inspects several captures (or a directory of them): a
// summary line per exchange, then the sessions of more than one turn;
// with --ex the full report of one exchange, with --json one document.
// Sessions are linked across every capture, in the order given.
func inspectMany(ctx context.Context, e *env, paths []string, o *inspectOptions, opts inspect.Options, g *findingGate) error {
	sessions := session.NewLinker()
	opts.Sessions = sessions
	where, err := parseWhere("inspect", o.where)
	if err != nil {
		return err
	}
	if o.ex.N != 0 && o.ex.Capture == "" && len(paths) > 1 {
		return &usageError{cmd: "inspect", msg: fmt.Sprintf("--ex %d: name the capture too among %d captures, as CAPTURE#%d", o.ex.N, len(paths), o.ex.N),
			example: "seam inspect --ex " + shellquote.Word(paths[0]) + "#" + strconv.Itoa(o.ex.N) + " DIR"}
	}
	w := textreport.NewManyWriter(e.stdout, o.form(e))
	var want func(string, int) bool
	if o.ex.N != 0 {
		want = o.ex.Matches
	}
	found := 0
	matched := map[session.ExchangeRef]bool{}
	err = inspectSome(ctx, e, paths, "inspect", opts, want, func(in *input, x *tape.Exchange, rep *inspect.ExchangeReport) error {
		if err := w.Capture(in.path); err != nil {
			return err
		}
		if !where.Empty() && !where.Match(rowOf(in, x, rep)) {
			return nil
		}
		found++
		matched[session.ExchangeRef{Capture: in.path, Ex: x.Ex}] = true
		one := &inspect.Report{Schema: inspect.SchemaVersion, Capture: in.path, Exchanges: []*inspect.ExchangeReport{rep}}
		g.Add(one, func(c junit.Case) junit.Case {
			c.Name = in.path + "#" + c.Name[len("exchange "):]
			return c
		})
		return w.Exchange(in.path, one)
	})
	if err == nil {
		err = w.EndCapture()
	}
	if err != nil {
		return err
	}
	if o.ex.N != 0 && found == 0 && where.Empty() {
		return fmt.Errorf("no exchange %s among the %s given", o.ex.String(), units.Count(len(paths), "capture"))
	}
	ss := sessions.List()
	if !where.Empty() {
		ss = session.Selected(ss, func(r session.ExchangeRef) bool { return matched[r] })
	}
	if err := w.Close(len(paths), found, ss); err != nil {
		return err
	}
	return g.finish("seam inspect")
}
