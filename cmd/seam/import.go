package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/convert"
	"github.com/seam-dev/seam/internal/units"
)

type importOptions struct {
	output  string
	url     string
	method  string
	request string
}

func (o *importOptions) flags(fs *flag.FlagSet) {
	fs.StringVar(&o.output, "o", "-", "capture `file` or directory to write (- for stdout)")
	fs.StringVar(&o.url, "url", "", "request `path` (and query) for exchanges recorded without a request, e.g. a raw body")
	fs.StringVar(&o.method, "method", "POST", "request `method` with --url")
	fs.StringVar(&o.request, "request", "", "`file` holding the request body, with --url")
}

func (o *importOptions) run(ctx context.Context, e *env, fs *flag.FlagSet) error {
	if fs.NArg() != 1 {
		return &usageError{cmd: "import", msg: "want exactly one recording to import", example: "seam import -o captures/ stream.sse"}
	}
	for _, f := range []string{"request", "method"} {
		if o.url == "" && isSet(fs, f) {
			return &usageError{cmd: "import", msg: "--" + f + " needs --url", example: "seam import --url /api/chat --method POST --request req.json -o captures/ chat.ndjson"}
		}
	}
	c, err := captures.Load(ctx, fs.Arg(0), e.open())
	if err != nil {
		return err
	}
	if o.url != "" {
		var body []byte
		if o.request != "" {
			if body, err = os.ReadFile(o.request); err != nil {
				return fmt.Errorf("read request body: %w", err)
			}
		}
		convert.GiveRequest(c, o.method, o.url, body)
	}
	if err := saveCapture(ctx, e, o.output, c); err != nil {
		return err
	}
	if o.output != "-" {
		fmt.Fprintf(e.stderr, "imported %s\n", units.Count(len(c.Exchanges), "exchange"))
	}
	return nil
}
