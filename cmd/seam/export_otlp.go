package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/otlpexport"
	"github.com/seam-dev/seam/session"
	"github.com/seam-dev/seam/tape"
)

// runOTLP is seam export --format otlp: every exchange of the captures (or
// those --where selects) sent as spans, sessions linked across them.
func (o *exportOptions) runOTLP(ctx context.Context, e *env, fs *flag.FlagSet) error {
	const example = "seam export --format otlp --otlp http://127.0.0.1:4318 captures/"
	for _, f := range []string{"side", "wire", "upstream", "ex"} {
		if isSet(fs, f) {
			return &usageError{cmd: "export", msg: "--" + f + " does not apply to --format otlp, which sends every exchange (--where selects some)", example: example}
		}
	}
	where, err := parseWhere("export", o.where)
	if err != nil {
		return err
	}
	x, err := o.otlp.exporter(ctx, e, "export", e.stderr)
	if err != nil {
		return err
	}
	if x == nil {
		return &usageError{cmd: "export", msg: "--format otlp sends to an OTLP endpoint: give --otlp URL or set OTEL_EXPORTER_OTLP_ENDPOINT", example: example}
	}
	x.Wait() // no stream to hold up: wait for room rather than drop
	paths, err := captures.Expand(ctx, fs.Args(), e.open())
	if err != nil {
		x.Close(ctx)
		return err
	}
	n := 0
	iopts := inspect.Options{NoDiffs: true, Sessions: session.NewLinker()}
	err = inspectSome(ctx, e, paths, "export", iopts, nil, func(in *input, ex *tape.Exchange, rep *inspect.ExchangeReport) error {
		if !where.Empty() && !where.Match(rowOf(in, ex, rep)) {
			return nil
		}
		x.Export(otlpexport.Exchange{Header: &in.header, CaptureURI: captureURI(in.path), X: ex, Report: rep})
		n++
		return nil
	})
	cctx, cancel := context.WithTimeout(context.Background(), otlpClose)
	defer cancel()
	x.Close(cctx)
	fmt.Fprintln(e.stderr, x.Summary())
	if err != nil {
		return err
	}
	if st := x.Stats(); st.Dropped > 0 {
		return fmt.Errorf("otlp: %d of %d spans were not sent: %w", st.Dropped, n, st.LastError)
	}
	return nil
}

// captureURI is the URI a span gives for the capture at path: a URI as
// it is, a file as a file: URI.
func captureURI(path string) string {
	if strings.Contains(path, "://") {
		return path
	}
	return otlpexport.FileURI(path)
}
