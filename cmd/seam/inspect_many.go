package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/junit"
	"github.com/seam-dev/seam/internal/shellquote"
	"github.com/seam-dev/seam/session"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/textreport"
	"github.com/seam-dev/seam/visible"
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
	w := &manyReport{e: e, o: o, color: o.color.enabled(e, e.stdout), rows: textreport.ExchangeTable(), first: true}
	if o.json {
		fmt.Fprintf(e.stdout, "{\n  \"schema\": %d,\n  \"captures\": [\n", inspect.SchemaVersion)
	}
	var want func(string, int) bool
	if o.ex.n != 0 {
		want = o.ex.matches
	}
	found := 0
	matched := map[session.ExchangeRef]bool{}
	err = inspectSome(ctx, e, paths, "inspect", opts, want, func(in *input, x *tape.Exchange, rep *inspect.ExchangeReport) error {
		if err := w.capture(in.path); err != nil {
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
		return w.exchange(in, one)
	})
	if err == nil {
		err = w.closeCapture()
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
	if err := w.close(len(paths), found, ss); err != nil {
		return err
	}
	return g.finish("seam inspect")
}

// manyReport writes inspectMany's report: one JSON document, what
// --client ends up with per exchange, the text of the exchange --ex
// names, or the summary table.
type manyReport struct {
	e     *env
	o     *inspectOptions
	color bool
	rows  *textreport.Table
	// jw writes the JSON report of the capture jwPath; first is set until
	// one was written.
	jw     *inspect.JSONWriter
	jwPath string
	first  bool
}

// capture starts, with --json, the report on the capture at path when the
// exchanges reach a new one: every capture given has its report, with or
// without exchanges selected.
func (w *manyReport) capture(path string) error {
	if !w.o.json || path == w.jwPath {
		return nil
	}
	if err := w.closeCapture(); err != nil {
		return err
	}
	if !w.first {
		io.WriteString(w.e.stdout, ",\n")
	}
	w.first, w.jwPath = false, path
	w.jw = inspect.NewJSONWriter(w.e.stdout, path)
	return nil
}

func (w *manyReport) closeCapture() error {
	if w.jw == nil {
		return nil
	}
	err := w.jw.Close(nil)
	w.jw = nil
	return err
}

// exchange writes, or adds to the table, the report on one exchange of in.
func (w *manyReport) exchange(in *input, one *inspect.Report) error {
	switch {
	case w.jw != nil:
		return w.jw.Exchange(one.Exchanges[0])
	case w.o.client != "":
		fmt.Fprintf(w.e.stdout, "== %s\n", visible.String(in.path))
		return textreport.WriteClient(w.e.stdout, one, w.o.client)
	case w.o.ex.n != 0:
		return textreport.Write(w.e.stdout, one, w.color)
	}
	w.rows.Add(textreport.ExchangeRow(in.path, one.Exchanges[0])...)
	return nil
}

// close ends the report: the JSON document's sessions, or the summary
// table and the sessions of more than one turn.
func (w *manyReport) close(captures, found int, sessions []*session.Session) error {
	out := w.e.stdout
	switch {
	case w.o.json:
		b, err := marshalSessions(sessions)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "\n  ],\n  \"sessions\": %s\n}\n", b)
	case w.o.client == "" && w.o.ex.n == 0:
		fmt.Fprintf(out, "%s, %s\n\n", plural(captures, "capture"), plural(found, "exchange"))
		if err := w.rows.Write(out, termWidth(w.e, out)); err != nil {
			return err
		}
		fmt.Fprintln(out)
		if err := textreport.WriteSessions(out, sessions, w.color); err != nil {
			return err
		}
		fmt.Fprintln(out, "details of one exchange: seam inspect --ex CAPTURE#N; the same as JSON: --json")
	}
	return nil
}

// marshalSessions encodes the sessions list at the document's second
// level of indentation.
func marshalSessions(ss []*session.Session) ([]byte, error) {
	if ss == nil {
		ss = []*session.Session{}
	}
	var b strings.Builder
	if err := writeJSONIndent(&b, ss, "  "); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}
