package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/seam-dev/seam/tape"
)

type importOptions struct {
	output string
}

func importCommand() *command {
	return &command{
		name:    "import",
		summary: "turn a raw recording (.sse, JSONL, VCR YAML, snapshot JSON) into a capture",
		usage:   "seam import [-o FILE|DIR|-] RAW",
		help: `
Converts a recording made by another tool into a seam capture, so every seam
command can read it: a raw SSE body, JSONL with one JSON payload per line (as
vercel/ai's *.chunks.txt), a VCR YAML cassette whose response body is an SSE
transcript (pydantic-ai, go-vcr), or an HTTP-snapshot JSON of parsed events.
The format is told from the content. Chunks are synthesised one per event.`,
		example: "seam import -o captures/ tests/cassettes/stream.yaml",
		flags: func(fs *flag.FlagSet) any {
			o := &importOptions{}
			fs.StringVar(&o.output, "o", "-", "capture `file` or directory to write (- for stdout)")
			return o
		},
		run: func(_ context.Context, e *env, fs *flag.FlagSet, opts any) error {
			o := opts.(*importOptions)
			if fs.NArg() != 1 {
				return &usageError{cmd: "import", msg: "want exactly one recording to import", example: "seam import -o captures/ stream.sse"}
			}
			c, err := openInput(e, fs.Arg(0))
			if err != nil {
				return err
			}
			if err := saveCapture(e, o.output, c); err != nil {
				return err
			}
			if o.output != "-" {
				fmt.Fprintf(e.stderr, "imported %s\n", plural(len(c.Exchanges), "exchange"))
			}
			return nil
		},
	}
}

// writeCapture writes c as a capture file: its header, then each exchange's
// lines in the order a recording would have written them. What reaches disk
// is redacted as seam record redacts (tape.RedactStoredExchange): an
// imported cassette may hold keys in its headers and bodies.
func writeCapture(w interface{ Write([]byte) (int, error) }, c *tape.Capture) error {
	h := c.Header
	if h.V == 0 {
		h.V = tape.Version
	}
	if h.Seam == "" {
		h.Seam = version
	}
	buf := tape.AppendHeader(nil, h)
	for _, x := range c.Exchanges {
		x = tape.RedactStoredExchange(x)
		for _, r := range []*tape.Request{x.Request, x.UpstreamRequest} {
			if r != nil {
				buf = tape.AppendRequest(buf, *r)
			}
		}
		for _, s := range []tape.Side{tape.Upstream, tape.Client} {
			sd := x.Side(s)
			if sd.Response != nil {
				buf = tape.AppendResponse(buf, *sd.Response)
			}
			for _, ch := range sd.Chunks {
				buf = tape.AppendChunk(buf, ch)
			}
			if sd.End != nil {
				buf = tape.AppendEnd(buf, *sd.End)
			}
		}
		for _, n := range x.Notes {
			buf = tape.AppendNote(buf, n)
		}
		if len(buf) > 1<<20 {
			if _, err := w.Write(buf); err != nil {
				return fmt.Errorf("write capture: %w", err)
			}
			buf = buf[:0]
		}
	}
	if _, err := w.Write(buf); err != nil {
		return fmt.Errorf("write capture: %w", err)
	}
	return nil
}
