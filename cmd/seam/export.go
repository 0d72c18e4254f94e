package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/coding"
	"github.com/seam-dev/seam/convert"
	"github.com/seam-dev/seam/demo"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/shellquote"
	"github.com/seam-dev/seam/session"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible"
)

type exportOptions struct {
	format   string
	ex       exFlag
	side     string
	upstream string
	wire     bool
	where    string
	otlp     otlpFlags
}

func (o *exportOptions) flags(fs *flag.FlagSet) {
	fs.StringVar(&o.format, "format", "", "output `format`: har, govcr, vcrpy, sse, curl or otlp (required)")
	fs.Var(&o.ex, "ex", "exchange `N` for sse and curl, CAPTURE#N among several captures (default 1)")
	fs.StringVar(&o.where, "where", "", "export only the exchanges `filter` selects (seam help where)")
	fs.StringVar(&o.side, "side", "client", "`side` for sse: upstream or client")
	fs.StringVar(&o.upstream, "upstream", "", "base `URL` for curl (default: the capture's upstream)")
	fs.BoolVar(&o.wire, "wire", false, "sse: write a compressed body as sent, not decoded")
	o.otlp.register(fs)
}

func (o *exportOptions) run(ctx context.Context, e *env, fs *flag.FlagSet) error {
	const example = "seam export --format har capture.ndjson > capture.har"
	if fs.NArg() == 0 {
		return &usageError{cmd: "export", msg: "want a capture or a directory of captures", example: example}
	}
	side := tape.Side(o.side)
	if side != tape.Upstream && side != tape.Client {
		return &usageError{cmd: "export", msg: fmt.Sprintf("--side %q: want upstream or client", o.side), example: example}
	}
	if o.format == "otlp" {
		return o.runOTLP(ctx, e, fs)
	}
	for _, f := range []string{"otlp", "otlp-content"} {
		if isSet(fs, f) {
			return &usageError{cmd: "export", msg: "--" + f + " applies to --format otlp", example: "seam export --format otlp --otlp http://127.0.0.1:4318 captures/"}
		}
	}
	switch o.format {
	case "har", "govcr", "vcrpy", "sse", "curl":
	case "":
		return &usageError{cmd: "export", msg: "--format is required: har, govcr, vcrpy, sse, curl or otlp", example: example}
	default:
		return &usageError{cmd: "export", msg: fmt.Sprintf("unknown --format %q: want har, govcr, vcrpy, sse, curl or otlp", o.format), example: example}
	}
	for _, f := range []struct{ name, format string }{{"side", "sse"}, {"wire", "sse"}, {"upstream", "curl"}} {
		if o.format != f.format && isSet(fs, f.name) {
			return &usageError{cmd: "export", msg: fmt.Sprintf("--%s applies to --format %s, not %s", f.name, f.format, o.format), example: example}
		}
	}
	if fs.NArg() > 1 || captures.IsDir(fs.Arg(0)) || o.where != "" || o.ex.Capture != "" {
		return exportMany(ctx, e, fs.Args(), o, side)
	}
	if convert.IsDocument(o.format) {
		c, err := captures.Load(ctx, fs.Arg(0), e.open())
		if err != nil {
			return err
		}
		return writeWhole(ctx, e, o.format, []*tape.Capture{c})
	}
	n := max(o.ex.N, 1)
	h, x, notes, err := oneExchange(ctx, e, fs.Arg(0), n)
	if err != nil {
		return err
	}
	if o.format == "curl" && o.upstream == "" && demo.MockUpstream(notes) {
		// The command would connect to nothing: say so, beside it and on
		// the terminal, and how to send it somewhere real.
		serve := e.hint("serve", fs.Arg(0))
		again := e.hint("export", "--format", "curl", "--ex", strconv.Itoa(x.Ex), "--upstream", "http://127.0.0.1:8081", fs.Arg(0))
		fmt.Fprintf(e.stderr, "seam: note: this capture's upstream was seam demo's mock, which stopped with the demo: the command below connects to nothing. Retarget it with --upstream URL, e.g. at %s:\n  %s\n", visible.String(serve), visible.String(again))
		// Each line a comment: visible.String leaves no line break in a
		// path that would end one.
		fmt.Fprintf(e.stdout, "# The upstream below was seam demo's mock upstream, which stopped when the demo\n# ended. To send this request, answer it from the capture and retarget:\n#   %s\n#   %s | sh\n", visible.String(serve), visible.String(again))
	}
	return exportOne(e, o, side, h, x)
}

// writeWhole writes caps as one document of a format convert.IsDocument
// reports.
func writeWhole(ctx context.Context, e *env, format string, caps []*tape.Capture) error {
	return convert.WriteDocument(ctx, e.stdout, format, caps, version, coding.Decode)
}

// exportOne writes one exchange as an sse body or a curl command.
func exportOne(e *env, o *exportOptions, side tape.Side, h *tape.Header, x *tape.Exchange) error {
	if o.format == "curl" {
		base := o.upstream
		if base == "" {
			base = tape.BaseURL(h, x.Request)
		}
		return convert.WriteCurl(e.stdout, x, base)
	}
	body, warning, err := convert.SideBody(x, side, o.wire, coding.Decode)
	if err != nil {
		return err
	}
	if warning != nil {
		fmt.Fprintf(e.stderr, "warning: %s\n", visible.String(warning.Error()))
	}
	_, err = e.stdout.Write(body)
	return err
}

// exportMany exports from several captures, or the exchanges a --where
// filter selects: a HAR of them all, or the one exchange sse and curl
// write.
func exportMany(ctx context.Context, e *env, args []string, o *exportOptions, side tape.Side) error {
	where, err := parseWhere("export", o.where)
	if err != nil {
		return err
	}
	paths, err := captures.Expand(ctx, args, e.open())
	if err != nil {
		return err
	}
	if !convert.IsDocument(o.format) && o.ex.N != 0 && o.ex.Capture == "" && len(paths) > 1 {
		return &usageError{cmd: "export", msg: fmt.Sprintf("--ex %d: name the capture too among %d captures, as CAPTURE#%d", o.ex.N, len(paths), o.ex.N),
			example: "seam export --format " + o.format + " --ex " + shellquote.Word(paths[0]) + "#" + strconv.Itoa(o.ex.N) + " DIR"}
	}
	var want func(string, int) bool
	if o.ex.N != 0 {
		want = o.ex.Matches
	}
	var caps []*tape.Capture
	iopts := inspect.Options{AssembleOnly: !where.Uses("finding", "severity"), NoDiffs: true, Sessions: session.NewLinker()}
	err = inspectSome(ctx, e, paths, "export", iopts, want, func(in *input, x *tape.Exchange, rep *inspect.ExchangeReport) error {
		if !where.Empty() && !where.Match(rowOf(in, x, rep)) {
			return nil
		}
		if n := len(caps); n == 0 || caps[n-1].Name != in.path {
			caps = append(caps, &tape.Capture{Name: in.path, Header: in.header})
		}
		c := caps[len(caps)-1]
		c.Exchanges = append(c.Exchanges, x)
		return nil
	})
	if err != nil {
		return err
	}
	if convert.IsDocument(o.format) {
		return writeWhole(ctx, e, o.format, caps)
	}
	var found []string
	for _, c := range caps {
		for _, x := range c.Exchanges {
			found = append(found, c.Name+"#"+strconv.Itoa(x.Ex))
		}
	}
	if len(found) != 1 {
		what := "no exchange"
		if len(found) > 1 {
			what = fmt.Sprintf("%d exchanges (%s)", len(found), strings.Join(found[:min(len(found), 3)], ", "))
		}
		return &usageError{cmd: "export", msg: fmt.Sprintf("--format %s writes one exchange, and %s matched: name one with --ex CAPTURE#N or a --where that selects one", o.format, visible.String(what)),
			example: "seam export --format " + o.format + " --where 'finding=session.*' captures/"}
	}
	return exportOne(e, o, side, &caps[0].Header, caps[0].Exchanges[0])
}
