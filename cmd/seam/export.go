package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/seam-dev/seam/coding"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible"
)

type exportOptions struct {
	format   string
	ex       int
	side     string
	upstream string
	wire     bool
}

func exportCommand() *command {
	return &command{
		name:    "export",
		summary: "write a capture out as HAR, a raw body per side, or a curl command",
		usage:   "seam export --format har|sse|curl [--ex N] [--side upstream|client] CAPTURE",
		help: `
Writes a capture in another format on stdout:

  har   an HTTP Archive 1.2 document, one entry per exchange, with the
        response as the client received it, for browsers' and proxies' tools
        (a compressed body is given decoded, its wire size kept)
  sse   the body of one exchange's side (--side client by default), byte
        for byte, to replay with any tool or diff with another; a body sent
        with a Content-Encoding is decoded (--wire keeps the bytes as sent)
  curl  a shell command that sends one exchange's request again; redacted
        headers are read from environment variables named after them
        (authorization from $AUTHORIZATION). Every part taken from the
        capture is single-quoted, so the command runs curl and nothing else;
        a request a shell cannot carry safely (a method or header name that
        is not an HTTP token, a line break in a header, a NUL in the body)
        is refused`,
		example: "seam export --format curl --ex 2 capture.ndjson",
		flags: func(fs *flag.FlagSet) any {
			o := &exportOptions{}
			fs.StringVar(&o.format, "format", "", "output `format`: har, sse or curl (required)")
			fs.IntVar(&o.ex, "ex", 1, "exchange `N` (sse and curl)")
			fs.StringVar(&o.side, "side", "client", "`side` for sse: upstream or client")
			fs.StringVar(&o.upstream, "upstream", "", "base `URL` for curl (default: the capture's upstream)")
			fs.BoolVar(&o.wire, "wire", false, "sse: write a compressed body as sent, not decoded")
			return o
		},
		run: runExport,
	}
}

func runExport(_ context.Context, e *env, fs *flag.FlagSet, opts any) error {
	o := opts.(*exportOptions)
	const example = "seam export --format har capture.ndjson > capture.har"
	if fs.NArg() != 1 {
		return &usageError{cmd: "export", msg: "want exactly one capture", example: example}
	}
	side := tape.Side(o.side)
	if side != tape.Upstream && side != tape.Client {
		return &usageError{cmd: "export", msg: fmt.Sprintf("--side %q: want upstream or client", o.side), example: example}
	}
	switch o.format {
	case "har", "sse", "curl":
	case "":
		return &usageError{cmd: "export", msg: "--format is required: har, sse or curl", example: example}
	default:
		return &usageError{cmd: "export", msg: fmt.Sprintf("unknown --format %q: want har, sse or curl", o.format), example: example}
	}
	if o.format == "har" {
		c, err := openInput(e, fs.Arg(0))
		if err != nil {
			return err
		}
		printWarnings(e, c.Warnings)
		return tape.WriteHARWith(e.stdout, c, tape.HAROptions{Creator: version, Decode: coding.Decode})
	}
	h, x, err := oneExchange(e, fs.Arg(0), o.ex)
	if err != nil {
		return err
	}
	if o.format == "curl" {
		base := o.upstream
		if base == "" {
			base = tape.BaseURL(h, x.Request)
		}
		return tape.WriteCurl(e.stdout, x, base)
	}
	sd := x.Side(side)
	body := sd.Body()
	if sd.Response != nil && !o.wire {
		if ce := strings.Join(sd.Response.Headers["content-encoding"], ", "); ce != "" {
			dec, err := coding.Decode(body, ce)
			switch {
			case dec == nil && err != nil:
				return fmt.Errorf("exchange %d %s body: %w (--wire writes it as sent)", x.Ex, side, err)
			case err != nil:
				fmt.Fprintf(e.stderr, "warning: exchange %d %s body: %s; wrote the %d bytes decoded before it\n", x.Ex, side, visible.String(err.Error()), len(dec))
			}
			body = dec
		}
	}
	_, err = e.stdout.Write(body)
	return err
}
