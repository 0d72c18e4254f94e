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
	"github.com/seam-dev/seam/tape"
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
func inspectMany(ctx context.Context, e *env, paths []string, o *inspectOptions, opts inspect.Options, failOn inspect.Severity) error {
	sessions := inspect.NewSessions()
	opts.Sessions = sessions
	where, err := parseWhere("inspect", o.where)
	if err != nil {
		return err
	}
	if o.ex.n != 0 && o.ex.capture == "" && len(paths) > 1 {
		return &usageError{cmd: "inspect", msg: fmt.Sprintf("--ex %d: name the capture too among %d captures, as CAPTURE#%d", o.ex.n, len(paths), o.ex.n),
			example: "seam inspect --ex " + shellQuote(paths[0]) + "#" + strconv.Itoa(o.ex.n) + " DIR"}
	}
	threshold := failOn
	if o.failOn == "" {
		threshold = inspect.Error
	}
	color := o.color.enabled(e, e.stdout)
	var (
		cases   []junit.Case
		reached bool
		found   int
		rows    = &table{cols: summaryColumns()}
		jw      *inspect.JSONWriter
		jwPath  string
		first   = true
	)
	if o.json {
		fmt.Fprintf(e.stdout, "{\n  \"schema\": %d,\n  \"captures\": [\n", inspect.SchemaVersion)
	}
	closeCapture := func() error {
		if jw == nil {
			return nil
		}
		err := jw.Close(nil)
		jw = nil
		return err
	}
	var want func(string, int) bool
	if o.ex.n != 0 {
		want = o.ex.matches
	}
	err = inspectSome(ctx, e, paths, "inspect", opts, want, func(in *input, x *tape.Exchange, rep *inspect.ExchangeReport) error {
		if o.json && in.path != jwPath {
			if err := closeCapture(); err != nil {
				return err
			}
			if !first {
				io.WriteString(e.stdout, ",\n")
			}
			first, jwPath = false, in.path
			jw = inspect.NewJSONWriter(e.stdout, in.path)
		}
		if !where.Empty() && !where.Match(rowOf(in, x, rep)) {
			return nil
		}
		found++
		one := &inspect.Report{Schema: inspect.SchemaVersion, Capture: in.path, Exchanges: []*inspect.ExchangeReport{rep}}
		if worst, ok := one.Worst(); ok && o.failOn != "" && worst >= failOn {
			reached = true
		}
		if o.junit != "" {
			for _, c := range inspectCases(one, threshold) {
				c.Name = in.path + "#" + c.Name[len("exchange "):]
				cases = append(cases, c)
			}
		}
		switch {
		case jw != nil:
			return jw.Exchange(rep)
		case o.client != "":
			fmt.Fprintf(e.stdout, "== %s\n", visible.String(in.path))
			return inspect.WriteClient(e.stdout, one, o.client)
		case o.ex.n != 0:
			return inspect.WriteText(e.stdout, one, color)
		}
		rows.add(summaryRow(in, rep)...)
		return nil
	})
	if err == nil {
		err = closeCapture()
	}
	if err != nil {
		return err
	}
	if o.ex.n != 0 && found == 0 && where.Empty() {
		return fmt.Errorf("no exchange %s among the %s given", o.ex.String(), plural(len(paths), "capture"))
	}
	switch {
	case o.json:
		b, err := marshalSessions(sessions.List())
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "\n  ],\n  \"sessions\": %s\n}\n", b)
	case o.client == "" && o.ex.n == 0:
		fmt.Fprintf(e.stdout, "%s, %s\n\n", plural(len(paths), "capture"), plural(found, "exchange"))
		if err := rows.write(e.stdout, termWidth(e, e.stdout)); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout)
		if err := inspect.WriteSessions(e.stdout, sessions.List(), color); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, "details of one exchange: seam inspect --ex CAPTURE#N; the same as JSON: --json")
	}
	if o.junit != "" {
		if err := writeJUnitFile(o.junitStdout, o.junit, "seam inspect", cases, 0); err != nil {
			return err
		}
	}
	if reached {
		return errFindings
	}
	return nil
}

// summaryColumns are the columns of inspect's summary of many captures.
func summaryColumns() []column {
	return []column{
		{head: "capture#ex", shrink: true}, {head: "method endpoint", shrink: true}, {head: "model", drop: 6},
		{head: "st", right: true}, {head: "outcome", drop: 3}, {head: "ttfb", right: true, drop: 4}, {head: "dur", right: true},
		{head: "gap max", right: true, drop: 7}, {head: "stalls", right: true, drop: 8}, {head: "tok/s", right: true, drop: 9},
		{head: "session", drop: 5}, {head: "findings"},
	}
}

// summaryRow is one exchange's line in inspect's summary.
func summaryRow(in *input, x *inspect.ExchangeReport) []string {
	status, gapMax, stalls, rate := "-", "-", "-", "-"
	if x.Status > 0 {
		status = strconv.Itoa(x.Status)
	}
	if m := x.Metrics; m != nil {
		if m.Gaps > 0 {
			gapMax, stalls = inspect.FormatDuration(m.GapMax), strconv.Itoa(m.Stalls)
		}
		if m.TokensPerS > 0 {
			rate = fmt.Sprintf("%.0f", m.TokensPerS)
		}
	}
	session := "-"
	if s := x.Session; s != nil {
		session = s.ID + " " + strconv.Itoa(s.Turn)
	}
	var counts [3]int
	for _, f := range x.Findings {
		counts[min(max(int(f.Severity), 0), 2)]++
	}
	var badge []string
	for sev := 2; sev >= 0; sev-- {
		if counts[sev] > 0 {
			badge = append(badge, "IWE"[sev:sev+1]+strconv.Itoa(counts[sev]))
		}
	}
	findings := "ok"
	if len(badge) > 0 {
		findings = strings.Join(badge, " ") + " " + visible.String(x.Findings[0].ID)
	}
	return []string{
		visible.String(filepath.Base(in.path)) + "#" + strconv.Itoa(x.Ex),
		visible.String(strings.TrimSpace(x.Method + " " + x.Origin + x.Endpoint)),
		visible.String(orDashCmd(x.Model)), status, visible.String(orDashCmd(string(x.Outcome))),
		inspect.FormatDuration(x.TTFB), inspect.FormatDuration(x.Dur), gapMax, stalls, rate, session, findings,
	}
}

func orDashCmd(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// marshalSessions encodes the sessions list at the document's second
// level of indentation.
func marshalSessions(ss []*inspect.Session) ([]byte, error) {
	if ss == nil {
		ss = []*inspect.Session{}
	}
	var b strings.Builder
	if err := writeJSONIndent(&b, ss, "  "); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}
