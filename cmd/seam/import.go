package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/convert"
)

type importOptions struct {
	output  string
	url     string
	method  string
	request string
}

func importCommand() *command {
	return &command{
		name:    "import",
		summary: "turn another tool's recording (a body, JSONL, HAR, VCR cassette, httprr, nock, snapshot JSON) into a capture",
		usage:   "seam import [-o FILE|DIR|-] [--url PATH [--method M] [--request FILE]] RAW",
		help:    importHelp,
		example: "seam import -o captures/ tests/cassettes/stream.yaml",
		new:     func() runner { return &importOptions{} },
	}
}

// importHelp is the text of "seam help import".
const importHelp = `
Converts a recording made by another tool into a seam capture, so every seam
command can read it. The format is told by parsing the content:

  HAR            a browser's or proxy's HTTP Archive: one exchange per entry,
                 bodies (base64 "encoding" too), start, first byte and end
  go-vcr         cassettes of go-vcr v1 to v4 (cassette formats 1 and 2)
  VCR.py         cassettes of VCR.py (and pydantic-ai's parsed_body), YAML
                 or JSON, !!binary bodies kept byte for byte
  Ruby vcr       cassettes of Ruby's vcr gem (http_interactions), YAML or
                 JSON, !binary and base64_string bodies kept byte for byte
  httprr         Go httprr traces (raw HTTP requests and responses)
  nock           nock recordings (a JSON array; binary responses in hex)
  js-genai       js-genai test recordings, whose bodies are stored parsed:
                 the SSE body is rebuilt, one data: event per segment
  snapshot JSON  {"metadata", "request", "stream": [{event, data}]}
  JSONL          one JSON payload per line (vercel/ai *.chunks.txt), each
                 line an SSE event named by its "type"
  Converse JSONL Bedrock ConverseStream events as the AWS SDKs yield them,
                 one per line ({"contentBlockDelta":{...}}) or a JSON array:
                 each becomes the event-stream message Bedrock sends
  a raw body     SSE, Ollama NDJSON, a Gemini JSON-array stream, AWS
                 event-stream binary as Bedrock sends it, or a provider's
                 JSON response, any of them still in HTTP/1.1 chunked
                 transfer framing

Anything else (an empty file, other binary data, other text) is refused with
what was found. A body becomes one chunk per event (SSE event, NDJSON line,
array element, event-stream message); its Content-Type comes from the source,
or from its framing when the source kept none. Times come from the source
where it has them (the header's "imported" field says how much is real) and
are never invented; a source without a date has no "started". The capture's
engine is passthrough: replay and check read it as it is, and replay
--profile shows what an engine makes of it.

A raw body has no request, so seam serve cannot match it: --url (with
--method, and --request naming a file that holds the request body) gives
it one.`

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
		fmt.Fprintf(e.stderr, "imported %s\n", plural(len(c.Exchanges), "exchange"))
	}
	return nil
}
