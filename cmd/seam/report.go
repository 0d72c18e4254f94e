package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/htmlreport"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/outfile"
	"github.com/seam-dev/seam/internal/shellquote"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/visible"
)

type reportOptions struct {
	ex       int
	output   string
	stall    time.Duration
	protocol string
}

func (o *reportOptions) flags(fs *flag.FlagSet) {
	fs.IntVar(&o.ex, "ex", 0, "report only exchange `N`")
	fs.StringVar(&o.output, "o", "", "HTML `file` or directory to write, - for stdout (default ./<capture name>.report.html)")
	fs.DurationVar(&o.stall, "stall", htmlreport.DefaultStall, "shade gaps without bytes longer than `duration` as stalls (0: none)")
	fs.StringVar(&o.protocol, "protocol", "auto", "override protocol detection: chat, responses, anthropic, gemini, converse, invoke, cohere, ollama")
}

func (o *reportOptions) run(ctx context.Context, e *env, fs *flag.FlagSet) error {
	const example = "seam report -o incident.html capture.ndjson"
	if fs.NArg() != 1 {
		return &usageError{cmd: "report", msg: "want exactly one capture or raw recording", example: example}
	}
	if o.stall < 0 {
		return &usageError{cmd: "report", msg: fmt.Sprintf("--stall %s: want a duration of 0 or more", o.stall), example: "seam report --stall 500ms capture.ndjson"}
	}
	if o.ex < 0 {
		return &usageError{cmd: "report", msg: fmt.Sprintf("--ex %d: exchanges are numbered from 1", o.ex), example: "seam report --ex 2 capture.ndjson"}
	}
	proto, err := protocol.ParseName(o.protocol)
	if err != nil {
		return &usageError{cmd: "report", msg: err.Error(), example: "seam report --protocol chat body.sse"}
	}
	in := fs.Arg(0)
	if st, err := os.Stat(in); err == nil && st.IsDir() {
		return &usageError{cmd: "report", msg: visible.String(in) + " is a directory: a page shows one capture; seam inspect " + shellquote.Word(in) + " lists them", example: "seam report " + shellquote.Word(filepath.Join(in, "CAPTURE.ndjson"))}
	}
	out, err := htmlreport.PagePath(in, o.output)
	if err != nil {
		return &usageError{cmd: "report", msg: err.Error(), example: "seam report -o report.html -"}
	}
	c, err := captures.Load(ctx, in, e.open())
	if err != nil {
		return err
	}
	if o.ex != 0 {
		if _, err := captures.Exchange(c, o.ex); err != nil {
			return err
		}
	}
	rep, err := inspect.InspectContext(ctx, c, inspect.Options{Protocol: proto, Ex: o.ex})
	if err != nil {
		return err
	}
	ho := htmlreport.Options{Version: version, Stall: o.stall}
	if out == "-" {
		return htmlreport.WriteContext(ctx, e.stdout, c, rep, ho)
	}
	// 0600 as captures are: the page quotes prompts and answers.
	n, err := outfile.Write(out, 0o600, func(w io.Writer) error { return htmlreport.WriteContext(ctx, w, c, rep, ho) })
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %s (%s, %s): open it in a browser\n", out, units.Count(len(rep.Exchanges), "exchange"), units.Bytes(n))
	return nil
}
