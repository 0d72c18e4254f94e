package convert

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// ImportFormats lists what [Import] accepts, for error messages and help.
const ImportFormats = "a raw SSE body (first line a data:, event:, id: or retry: field, or a : comment), " +
	"a raw provider body (Ollama NDJSON, a JSON-array stream, AWS event-stream binary, a JSON response; chunked or not), " +
	"JSONL (one JSON object per line; AWS SDK ConverseStream events), a VCR cassette (go-vcr v1–v4, VCR.py or Ruby vcr, YAML or JSON), " +
	`a HAR file ({"log":{"entries":[...]}}), an httprr trace, a nock or js-genai recording, or an HTTP-snapshot JSON ({"stream":[...]})`

// ImportError says why a file is not something [Import] can read.
type ImportError struct {
	// File is the name given to Import.
	File string
	// Line is the 1-based line of the problem, or 0 for the file as a whole.
	Line int
	// Reason says what was found.
	Reason string
}

// Error names the file (and line), what was found and what is accepted.
func (e *ImportError) Error() string {
	where := e.File
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	return fmt.Sprintf("%s: %s; want a seam capture or %s", where, e.Reason, ImportFormats)
}

// Import turns another tool's recording into a capture, so every seam
// command can read it. The format is told by parsing the content, not by
// the file name:
//   - a HAR file: one exchange per entry, with its request, response
//     headers and body (base64 "encoding" included) and the entry's
//     timings (start, first byte, end);
//   - a VCR cassette: go-vcr (cassette format 1, written by go-vcr v1 and
//     v2, and format 2, written by v3 and v4), VCR.py (including
//     pydantic-ai's parsed_body variant) or Ruby's vcr gem
//     (http_interactions), in YAML or JSON: one exchange per interaction,
//     binary (!!binary, Psych's !binary, base64_string) bodies kept byte
//     for byte;
//   - an HTTP-snapshot JSON {metadata, request, stream[]} whose stream
//     holds parsed events {event, data};
//   - an httprr trace (Go), a nock recording (JavaScript, binary responses
//     in hex) or a js-genai recording (bodies stored parsed, the SSE body
//     rebuilt one event per segment): one exchange per record;
//   - JSONL, one JSON payload per line (vercel/ai *.chunks.txt): each line
//     becomes an SSE event, named by its "type" when it has one;
//   - Bedrock ConverseStream events as the AWS SDKs yield them
//     ({"contentBlockDelta":{...}}), one per line or a JSON array: each
//     becomes the event-stream message Bedrock sends for it;
//   - a raw body: SSE, Ollama NDJSON (kept as NDJSON, not wrapped as JSONL
//     is), a JSON-array stream (Gemini), AWS event-stream binary (Bedrock),
//     a provider's JSON response, any of them still in HTTP/1.1 chunked
//     transfer framing: one exchange, the body as the upstream side, typed
//     by its framing.
//
// Anything else (an empty file, binary data, text that is none of these) is
// an [*ImportError]. A body becomes one chunk per event of its framing (SSE
// event, NDJSON line, array element, event-stream message); a compressed or
// single-document body one chunk. The source's times are kept where it has them and
// nothing is invented: Header.Imported says how much timing is real, and
// Header.Started is zero when the source has no date. The engine is
// passthrough (an import has no client side to shape), so replay and check
// read the capture as is.
func Import(r io.Reader, name string) (*tape.Capture, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("import %s: read: %w", name, err)
	}
	return ImportBytes(b, name)
}

// GiveRequest gives every exchange of c recorded without a request (a
// raw body) one: method, url (a path and query) and body, so seam serve
// can match it.
func GiveRequest(c *tape.Capture, method, url string, body []byte) {
	for _, x := range c.Exchanges {
		if x.Request == nil {
			x.Request = &tape.Request{Ex: x.Ex, Method: method, URL: url, Body: body, Headers: tape.Headers{}}
		}
	}
}

// ImportBytes is [Import] of a recording held in memory.
func ImportBytes(b []byte, name string) (*tape.Capture, error) {
	sum := sha256.Sum256(b)
	im := &importer{name: name, c: &tape.Capture{Name: name, Header: tape.Header{
		V: tape.Version, ID: "import-" + hex.EncodeToString(sum[:6]), Engine: tape.Engine{Profile: "passthrough"},
	}}}
	if err := im.run(b); err != nil {
		return nil, err
	}
	c := im.c
	if len(c.Exchanges) == 0 {
		return nil, &ImportError{File: name, Reason: im.format + " with no exchanges"}
	}
	im.placeRequests()
	c.Header.Imported = &tape.Imported{Format: im.format, File: baseName(name), Timing: im.timing}
	c.Notes = append(c.Notes, tape.Note{Text: fmt.Sprintf("imported from %s (%s); %s", baseName(name), im.format, timingNote[im.timing])})
	return c, nil
}

var timingNote = map[string]string{
	tape.TimingNone:    "the source records no times, so every t is 0",
	tape.TimingPartial: "the source records when each exchange started and ended but not when each chunk arrived",
}

func baseName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		return name[i+1:]
	}
	return name
}

// importer builds one imported capture.
type importer struct {
	name   string
	c      *tape.Capture
	format string
	timing string
}

func (im *importer) fail(line int, format string, args ...any) error {
	return &ImportError{File: im.name, Line: line, Reason: fmt.Sprintf(format, args...)}
}

// run detects the format of b and imports it.
func (im *importer) run(b []byte) error {
	trim := bytes.TrimSpace(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")))
	im.timing = tape.TimingNone
	if len(trim) == 0 {
		return im.fail(0, "empty file")
	}
	if ok, err := im.providerBinary(b); ok || err != nil {
		return err
	}
	switch {
	case !utf8.Valid(trim):
		return im.fail(0, "binary data (not UTF-8 text)")
	case trim[0] == '{' || trim[0] == '[':
		if json.Valid(trim) {
			doc := gjson.ParseBytes(trim)
			if ok, err := im.providerRecording(doc); ok || err != nil {
				return err
			}
			switch {
			case doc.Get("log.entries").IsArray():
				im.format = "har"
				return im.har(trim)
			case doc.Get("interactions").IsArray(), doc.Get("http_interactions").IsArray():
				return im.cassette(trim)
			case doc.Get("stream").IsArray():
				im.format = "http snapshot"
				return im.snapshot(doc)
			case converseArray(doc):
				return im.converseJSONArray(doc)
			}
			if im.providerBody(trim, doc) {
				return nil
			}
			if bytes.IndexByte(trim, '\n') >= 0 {
				return im.fail(0, "a JSON document, but not a HAR (no log.entries), a cassette (no interactions) or a snapshot (no stream)")
			}
		}
		if converseLines(trim) {
			return im.converseJSONL(b)
		}
		if ollamaLines(trim) {
			im.format = "ollama ndjson"
			im.add(exchangeData{status: http.StatusOK, contentType: framing.NDJSON.ContentType(), body: b})
			return nil
		}
		im.format = "jsonl"
		return im.jsonl(b)
	}
	if framing.SSEStart(trim) {
		im.format = "sse"
		im.add(exchangeData{status: http.StatusOK, contentType: "text/event-stream", body: b})
		return nil
	}
	if ok, err := im.yamlCassette(trim); ok || err != nil {
		return err
	}
	first, _, _ := bytes.Cut(trim, []byte("\n"))
	return im.fail(0, "unrecognised content starting %q", excerpt.Clip(strings.TrimRight(string(first), "\r"), 40))
}

// exchangeData is one exchange read from a source, before it becomes tape
// records.
type exchangeData struct {
	method, url string
	// scheme and host say where the request went, when the source says.
	scheme, host string
	reqHeaders   http.Header
	reqBody      []byte
	status       int
	respHeaders  http.Header
	// contentType is used when respHeaders has none.
	contentType string
	body        []byte
	// events, when set, are the body already split into SSE events.
	events [][]byte
	// t is when the request was sent, first when its first byte arrived
	// (0: unknown), end when it ended (0: unknown); all relative to the
	// capture's start.
	t, first, end int64
	// outcome defaults to complete; errText goes with a failure.
	outcome tape.Outcome
	errText string
	notes   []string
}

// add appends x as the next exchange of the capture.
func (im *importer) add(x exchangeData) {
	c := im.c
	ex := len(c.Exchanges) + 1
	tx := &tape.Exchange{Ex: ex}
	if x.method != "" || x.url != "" || x.reqBody != nil {
		tx.Request = &tape.Request{Ex: ex, T: x.t, Method: x.method, Scheme: x.scheme, Host: x.host, URL: x.url, Body: x.reqBody, Headers: redactHeaders(x.reqHeaders)}
		if len(x.reqBody) > maxImportRequestBody {
			// As the recorder keeps it: the line must stay readable.
			tx.Request.Body, tx.Request.BodyTruncated = x.reqBody[:maxImportRequestBody], true
		}
	}
	h := redactHeaders(x.respHeaders)
	if len(h["content-type"]) == 0 && x.contentType != "" {
		h["content-type"] = []string{x.contentType}
	}
	first := max(x.first, x.t)
	end := max(x.end, first)
	tx.Upstream.Response = &tape.Response{Ex: ex, Side: tape.Upstream, T: x.t, Status: x.status, Headers: h}
	events := x.events
	if events == nil && len(x.body) > 0 {
		events = splitBody(h, x.body)
	}
	off := int64(0)
	for _, e := range events {
		// A chunk is one line of the capture: a larger body (a single
		// document, a compressed one) is cut, so every line stays well
		// within what a reader reads (tape.MaxLine).
		for len(e) > 0 {
			n := min(len(e), maxImportChunk)
			tx.Upstream.Chunks = append(tx.Upstream.Chunks, tape.Chunk{Ex: ex, Side: tape.Upstream, T: first, Off: off, Data: e[:n:n]})
			off += int64(n)
			e = e[n:]
		}
	}
	outcome := x.outcome
	if outcome == "" {
		outcome = tape.Complete
	}
	tx.Upstream.End = &tape.End{Ex: ex, Side: tape.Upstream, T: end, Outcome: outcome, Bytes: off, Error: x.errText}
	for _, n := range x.notes {
		tx.Notes = append(tx.Notes, tape.Note{Ex: ex, T: end, Text: n})
	}
	c.Exchanges = append(c.Exchanges, tx)
}

// maxImportChunk is the largest chunk an import writes, and
// maxImportRequestBody the most of a request body it keeps (as much as the
// recorder keeps by default): a capture line must stay within tape.MaxLine.
const (
	maxImportChunk       = 8 << 20
	maxImportRequestBody = 16 << 20
)

// redactHeaders redacts h for disk as a recording does; never nil.
func redactHeaders(h http.Header) tape.Headers {
	if h == nil {
		return tape.Headers{}
	}
	return tape.RedactHeaders(h)
}

// splitBody cuts a response body into chunks where its framing ends
// events (SSE events, by content type or, when the type is missing, by
// content; NDJSON lines; JSON-array elements; event-stream messages), the
// whole body as one chunk otherwise, byte for byte either way.
func splitBody(h tape.Headers, body []byte) [][]byte {
	ct := ""
	if v := h["content-type"]; len(v) > 0 {
		ct = strings.ToLower(v[0])
	}
	if ct == "" && utf8.Valid(body) && framing.SSEStart(body) {
		ct = "text/event-stream"
	}
	return splitFramed(ct, strings.Join(h["content-encoding"], ", "), body)
}

// splitURL splits an absolute URL into its scheme, host and the path and
// query a request line records, secret query values redacted. A relative
// URL is all path.
func splitURL(raw string) (scheme, host, path string) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", "", raw
	}
	u.Fragment, u.RawFragment = "", ""
	if u.Scheme != "" && u.Host != "" {
		scheme, host = strings.ToLower(u.Scheme), u.Host
	}
	if u.Path == "" {
		u.Path = "/"
	}
	return scheme, host, tape.RedactURL(u)
}

// placeRequests names where the requests went: the capture's upstream when
// they all went to one, else (as a forward-proxy recording does) each
// request's scheme and host, with no upstream.
func (im *importer) placeRequests() {
	bases := map[string]bool{}
	for _, x := range im.c.Exchanges {
		if r := x.Request; r != nil && r.Host != "" {
			bases[r.Scheme+"://"+r.Host] = true
		}
	}
	if len(bases) != 1 {
		return
	}
	for b := range bases {
		im.c.Header.Upstream = b
	}
	for _, x := range im.c.Exchanges {
		if r := x.Request; r != nil {
			r.Scheme, r.Host = "", ""
		}
	}
}

// jsonl imports one JSON payload per line, each line an SSE event named by
// its "type" field. Lines have no length limit; every line must be JSON.
func (im *importer) jsonl(b []byte) error {
	var events [][]byte
	br := bufio.NewReader(bytes.NewReader(b))
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			line = bytes.TrimSpace(line)
			if n == 1 {
				line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
			}
			if len(line) > 0 {
				if !gjson.ValidBytes(line) {
					return im.fail(n, "not JSON (JSONL wants one JSON value per line)")
				}
				var e []byte
				if typ := gjson.GetBytes(line, "type").String(); typ != "" && !strings.ContainsAny(typ, "\r\n") {
					e = append(e, "event: "+typ+"\n"...)
				}
				e = append(append(append(e, "data: "...), line...), "\n\n"...)
				events = append(events, e)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("import %s: read line %d: %w", im.name, n, err)
		}
	}
	if len(events) == 1 && !bytes.HasPrefix(events[0], []byte("event: ")) && protocol.FromPayload(strings.TrimSpace(string(bytes.TrimPrefix(events[0], []byte("data: "))))) == protocol.Unknown {
		// One JSON value that names no event type and is no provider's
		// payload: nothing says it is a recording at all.
		return im.fail(1, "one JSON value that is no provider payload (no \"type\", no choices, content, candidates, …) and no recording seam knows")
	}
	im.add(exchangeData{status: http.StatusOK, contentType: "text/event-stream", events: events})
	return nil
}

// snapshot imports an HTTP-snapshot JSON: metadata (route, captured_at),
// the request and the stream of parsed events.
func (im *importer) snapshot(r gjson.Result) error {
	var events [][]byte
	r.Get("stream").ForEach(func(_, e gjson.Result) bool {
		if e.Get("type").String() == "done" {
			return true
		}
		var ev []byte
		if n := e.Get("event").String(); n != "" && !strings.ContainsAny(n, "\r\n") {
			ev = append(ev, "event: "+n+"\n"...)
		}
		data := e.Get("data")
		raw := data.Raw
		if data.Type == gjson.String {
			raw = data.String()
		} else {
			var buf bytes.Buffer
			if json.Compact(&buf, []byte(raw)) == nil {
				raw = buf.String()
			}
		}
		for i, line := range strings.Split(strings.ReplaceAll(raw, "\r\n", "\n"), "\n") {
			if i > 0 {
				ev = append(ev, '\n')
			}
			ev = append(append(ev, "data: "...), line...)
		}
		ev = append(ev, "\n\n"...)
		events = append(events, ev)
		return true
	})
	if at := r.Get("metadata.captured_at").String(); at != "" {
		if t, err := time.Parse(time.RFC3339Nano, at); err == nil {
			im.c.Header.Started = t
		}
	}
	x := exchangeData{method: http.MethodPost, url: r.Get("metadata.route").String(), status: http.StatusOK, contentType: "text/event-stream", events: events}
	if rb := r.Get("request.body"); rb.Exists() {
		x.reqBody = []byte(rb.Raw)
	}
	im.add(x)
	return nil
}
