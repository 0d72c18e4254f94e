package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/check"
	"github.com/seam-dev/seam/clients"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/textreport"
	"github.com/seam-dev/seam/tui"
)

type inspectOptions struct {
	ex            exFlag
	where         string
	json          bool
	client        string
	protocol      string
	failOn        string
	listDetectors bool
	color         colorFlag
	junit         string
}

// errFindings reports that --fail-on was reached: exit status 1, the report
// having said why.
var errFindings = errors.New("findings reached the --fail-on severity")

func (o *inspectOptions) flags(fs *flag.FlagSet) {
	fs.Var(&o.ex, "ex", "inspect only exchange `N` (CAPTURE#N among several captures)")
	fs.StringVar(&o.where, "where", "", "inspect only the exchanges `filter` selects (seam help where)")
	fs.BoolVar(&o.json, "json", false, "print the report as JSON")
	fs.StringVar(&o.client, "client", "", "show what `client` would end up with: "+strings.Join(clients.All(), ", "))
	fs.StringVar(&o.protocol, "protocol", "auto", "override protocol detection: chat, responses, anthropic, gemini, converse, invoke, cohere, ollama")
	fs.StringVar(&o.failOn, "fail-on", "", "exit 1 when a finding reaches `severity` error or warn")
	fs.BoolVar(&o.listDetectors, "list-detectors", false, "list every detector with its id, severity and what it catches")
	fs.Var(&o.color, "color", "colour: auto, always or never (NO_COLOR turns auto off)")
	fs.StringVar(&o.junit, "junit", "", "also write JUnit XML to `file` (- for stdout, instead of the report): one test case per exchange, failed by a finding at --fail-on (default error)")
}

func (o *inspectOptions) run(ctx context.Context, e *env, fs *flag.FlagSet) error {
	const ex = "seam inspect captures/seam-20261122T093428Z.ndjson"
	if o.listDetectors {
		return textreport.WriteDetectors(e.stdout)
	}
	if fs.NArg() == 0 {
		return &usageError{cmd: "inspect", msg: "want a capture, a raw recording or a directory of captures", example: ex}
	}
	proto, err := protocol.ParseName(o.protocol)
	if err != nil {
		return &usageError{cmd: "inspect", msg: err.Error(), example: "seam inspect --protocol chat body.sse"}
	}
	var failOn *inspect.Severity
	if o.failOn != "" {
		sev, err := inspect.ParseSeverity(o.failOn)
		if err != nil {
			return &usageError{cmd: "inspect", msg: "--fail-on: " + err.Error(), example: "seam inspect --fail-on error FILE"}
		}
		failOn = &sev
	}
	g := &findingGate{Gate: check.NewGate(failOn, o.junit != ""), junit: o.junit, stdout: e.stdout}
	if o.client != "" && !slices.Contains(clients.All(), o.client) {
		return &usageError{cmd: "inspect", msg: fmt.Sprintf("unknown --client %q (clients: %s)", o.client, strings.Join(clients.All(), ", ")), example: "seam inspect --client vscode FILE"}
	}
	if o.junit == "-" {
		if o.json {
			return &usageError{cmd: "inspect", msg: "--json and --junit - both want stdout", example: "seam inspect --json --junit report.xml captures/"}
		}
		// The JUnit XML has stdout to itself: the report goes nowhere, as
		// seam check's does.
		quiet := *e
		quiet.stdout = io.Discard
		e = &quiet
	}
	iopts := inspect.Options{Protocol: proto}
	if fs.NArg() == 1 && !captures.IsDir(fs.Arg(0)) && o.where == "" && o.ex.Capture == "" {
		return inspectStream(ctx, e, fs.Arg(0), o, iopts, g)
	}
	paths, err := captures.Expand(ctx, fs.Args(), e.open())
	if err != nil {
		return err
	}
	return inspectMany(ctx, e, paths, o, iopts, g)
}

// inspectStream inspects the capture at path exchange by exchange, writing
// each exchange's report as soon as it and those before it are inspected,
// so memory holds the exchanges in progress at one point of the file and
// the few being inspected (on every CPU), not the capture.
func inspectStream(ctx context.Context, e *env, path string, o *inspectOptions, opts inspect.Options, g *findingGate) error {
	batchGC(e)
	src, err := captures.OpenInspection(ctx, path, e.open(), opts)
	if err != nil {
		return err
	}
	defer src.Close()
	w := textreport.NewStreamWriter(e.stdout, path, o.form(e))
	p := inspect.NewExPicker(o.ex.N)
	err = src.Run(ctx, p.Pick, func(i captures.Inspected) error {
		one := &inspect.Report{Schema: inspect.SchemaVersion, Capture: path, Exchanges: []*inspect.ExchangeReport{i.Report}}
		if err := w.Exchange(one); err != nil {
			return err
		}
		g.Add(one, nil)
		return nil
	})
	if err != nil {
		return err
	}
	if o.ex.N != 0 && p.Picked() == 0 {
		return &captures.NoExchangeError{Path: path, Ex: o.ex.N, Have: p.Seen()}
	}
	if err := w.Close(src.Warnings(), src.Inspector.Sessions()); err != nil {
		return err
	}
	return g.finish("seam inspect " + path)
}

// form is the form of the report the flags ask for.
func (o *inspectOptions) form(e *env) textreport.Form {
	return textreport.Form{JSON: o.json, Client: o.client, Color: o.color.enabled(e, e.stdout), One: o.ex.N != 0, Width: termWidth(e, e.stdout)}
}

// colorFlag is --color: auto (the default), always or never.
type colorFlag string

func (c *colorFlag) String() string { return string(*c) }

func (c *colorFlag) Set(v string) error {
	switch v {
	case "auto", "always", "never":
		*c = colorFlag(v)
		return nil
	}
	return fmt.Errorf("want auto, always or never, got %q", v)
}

// enabled decides colour for out: always, never, or (auto) only on a
// terminal with NO_COLOR unset and TERM not dumb.
func (c colorFlag) enabled(e *env, out io.Writer) bool {
	switch c {
	case "always":
		return true
	case "never":
		return false
	}
	if e.getenv("NO_COLOR") != "" || e.getenv("TERM") == "dumb" {
		return false
	}
	return tui.IsTerminal(out) || e.paging && out == e.stdout
}
