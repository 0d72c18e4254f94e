package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/junit"
	"github.com/seam-dev/seam/internal/shellquote"
	"github.com/seam-dev/seam/session"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/textreport"
)

// exFlag is inspect's --ex: N, or CAPTURE#N among several captures.
type exFlag struct {
	capture string
	n       int
}

func (f *exFlag) String() string {
	if f.n == 0 {
		return ""
	}
	if f.capture != "" {
		return f.capture + "#" + strconv.Itoa(f.n)
	}
	return strconv.Itoa(f.n)
}

func (f *exFlag) Set(v string) error {
	num := v
	if i := strings.LastIndexByte(v, '#'); i >= 0 {
		f.capture, num = v[:i], v[i+1:]
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return fmt.Errorf("want an exchange number from 1, or CAPTURE#N, got %q", v)
	}
	f.n = n
	return nil
}

// matches reports whether exchange ex of the capture at path is the one
// the flag names.
func (f *exFlag) matches(path string, ex int) bool {
	if f.n != ex {
		return false
	}
	return f.capture == "" || f.capture == path || filepath.Base(f.capture) == filepath.Base(path) && !strings.Contains(f.capture, "/")
}

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
	if o.ex.n != 0 && o.ex.capture == "" && len(paths) > 1 {
		return &usageError{cmd: "inspect", msg: fmt.Sprintf("--ex %d: name the capture too among %d captures, as CAPTURE#%d", o.ex.n, len(paths), o.ex.n),
			example: "seam inspect --ex " + shellquote.Word(paths[0]) + "#" + strconv.Itoa(o.ex.n) + " DIR"}
	}
	w := textreport.NewManyWriter(e.stdout, o.form(e))
	var want func(string, int) bool
	if o.ex.n != 0 {
		want = o.ex.matches
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
	if o.ex.n != 0 && found == 0 && where.Empty() {
		return fmt.Errorf("no exchange %s among the %s given", o.ex.String(), plural(len(paths), "capture"))
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
