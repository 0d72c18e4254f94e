package convert

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/seam-dev/seam/tape"
)

// CassetteOptions tune WriteGoVCR and WriteVCRpy.
type CassetteOptions struct {
	// Context, when set, stops the writing once it is done, before the
	// next exchange, with its error (the cassette is then cut short).
	Context context.Context
}

// WriteGoVCR writes the exchanges of cs as one go-vcr cassette (format
// version 2, as go-vcr v3 and v4 write and load it): an interaction per
// exchange, in order, with the request and the response as the client
// received it (the upstream's when the client side was not recorded). The
// response body is the side's bytes as they came, a compressed body with
// its Content-Encoding; a body that is not UTF-8 is written as !!binary,
// which go-vcr reads back byte for byte. Secrets are redacted as in
// WriteHAR, and a header whose value was redacted is left out (go-vcr
// users strip Authorization with a hook before saving). Exchanges without
// a response, and WebSockets, which a cassette cannot hold, are skipped.
func WriteGoVCR(w io.Writer, cs []*tape.Capture, opts CassetteOptions) error {
	cw := &cassetteWriter{w: w}
	cw.line("version: 2")
	err := eachInteraction(cs, opts, func(it interaction) error {
		req := mapping(
			"proto", str("HTTP/1.1"), "proto_major", num(1), "proto_minor", num(1),
			"content_length", num(int64(len(it.reqBody))),
			"host", str(it.host),
			"body", body(it.reqBody),
			"form", formNode(it.form),
			"headers", headerNode(it.reqHeaders),
			"url", str(it.url),
			"method", str(it.method),
		)
		resp := mapping(
			"proto", str("HTTP/1.1"), "proto_major", num(1), "proto_minor", num(1),
			"content_length", num(int64(len(it.body))),
			"body", body(it.body),
			"headers", headerNode(it.respHeaders),
			"status", str(statusLine(it.status)),
			"code", num(int64(it.status)),
			"duration", str(it.duration.String()),
		)
		return cw.item(mapping("id", num(int64(cw.n)), "request", req, "response", resp))
	})
	if err == nil {
		err = cw.end()
	}
	if err != nil {
		return fmt.Errorf("write go-vcr cassette: %w", err)
	}
	return nil
}

// WriteVCRpy writes the exchanges of cs as one VCR.py cassette (its
// default YAML serializer, cassette version 1), as WriteGoVCR writes a
// go-vcr one: a response body that is not UTF-8 is !!binary, which VCR.py
// loads as bytes; a header whose value was redacted is left out, as
// VCR.py's filter_headers leaves it.
func WriteVCRpy(w io.Writer, cs []*tape.Capture, opts CassetteOptions) error {
	cw := &cassetteWriter{w: w}
	err := eachInteraction(cs, opts, func(it interaction) error {
		reqBody := &node{scalar: "null"}
		if len(it.reqBody) > 0 {
			reqBody = body(it.reqBody)
		}
		req := mapping("body", reqBody, "headers", headerNode(it.reqHeaders), "method", str(it.method), "uri", str(it.url))
		resp := mapping(
			"body", mapping("string", body(it.body)),
			"headers", headerNode(it.respHeaders),
			"status", mapping("code", num(int64(it.status)), "message", str(http.StatusText(it.status))),
		)
		return cw.item(mapping("request", req, "response", resp))
	})
	if err == nil {
		err = cw.end()
	}
	if err == nil {
		err = cw.line("version: 1")
	}
	if err != nil {
		return fmt.Errorf("write VCR.py cassette: %w", err)
	}
	return nil
}

// cassetteWriter writes a cassette's interactions as they come, so that
// it holds no more than one exchange's text.
type cassetteWriter struct {
	w   io.Writer
	n   int // interactions written
	buf bytes.Buffer
	err error
}

func (cw *cassetteWriter) line(s string) error {
	if cw.err == nil {
		_, cw.err = io.WriteString(cw.w, s+"\n")
	}
	return cw.err
}

// item writes one interaction, under the "interactions:" key it writes
// before the first.
func (cw *cassetteWriter) item(n *node) error {
	if cw.n == 0 {
		cw.line("interactions:")
	}
	cw.n++
	cw.buf.Reset()
	cw.buf.WriteString("  - ")
	n.writeInline(&cw.buf, 4)
	if cw.err == nil {
		_, cw.err = cw.w.Write(cw.buf.Bytes())
	}
	return cw.err
}

// end writes an empty interactions list when there was no interaction.
func (cw *cassetteWriter) end() error {
	if cw.n == 0 {
		return cw.line("interactions: []")
	}
	return cw.err
}

// NoUpstream is the base URL a cassette gives the requests of a capture
// that names no upstream (an imported body recorded without its URL).
const NoUpstream = "http://localhost"

// interaction is one exchange as a cassette holds it.
type interaction struct {
	method, url, host string
	// form is what net/http's ParseForm makes of the request: the query,
	// and a form body's values (go-vcr records and matches it).
	form                    url.Values
	reqHeaders, respHeaders http.Header
	reqBody, body           []byte
	status                  int
	duration                time.Duration
}

// eachInteraction calls f with every exchange of cs that a cassette can
// hold, redacted.
func eachInteraction(cs []*tape.Capture, opts CassetteOptions, f func(interaction) error) error {
	for _, c := range cs {
		for _, x := range c.Exchanges {
			if opts.Context != nil {
				if err := opts.Context.Err(); err != nil {
					return err
				}
			}
			if x.Request == nil {
				continue
			}
			side := &x.Client
			if side.Response == nil {
				side = &x.Upstream
			}
			if side.Response == nil || side.Response.Status == http.StatusSwitchingProtocols {
				continue
			}
			// The capture may predate the recorder's redaction, or be imported.
			req, secrets := tape.RedactStored(x.Request)
			base := tape.BaseURL(&c.Header, req)
			if base == "" {
				// An imported body that names no server: a cassette
				// needs an absolute URL.
				base = NoUpstream
			}
			full := base + req.URL
			host := req.Host
			if host == "" {
				if _, rest, ok := strings.Cut(full, "://"); ok {
					host, _, _ = strings.Cut(rest, "/")
				}
			}
			respBody, _ := tape.MaskSecrets(side.Body(), secrets, nil)
			form := url.Values{}
			if _, q, ok := strings.Cut(req.URL, "?"); ok {
				form, _ = url.ParseQuery(q)
			}
			if strings.HasPrefix(req.Headers.Get("content-type"), "application/x-www-form-urlencoded") && req.Method != http.MethodGet {
				if v, err := url.ParseQuery(string(req.Body)); err == nil {
					for k, vs := range v {
						form[k] = append(form[k], vs...)
					}
				}
			}
			end := side.Response.T
			if side.End != nil {
				end = side.End.T
			} else if n := len(side.Chunks); n > 0 {
				end = side.Chunks[n-1].T
			}
			err := f(interaction{
				method: req.Method, url: full, host: host, form: form,
				reqHeaders: cassetteHeaders(req.Headers, "host", "content-length"), reqBody: req.Body,
				respHeaders: cassetteHeaders(tape.RedactHeaders(http.Header(side.Response.Headers)), "content-length"),
				body:        respBody, status: side.Response.Status,
				duration: time.Duration(max(end-req.T, 0)),
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// cassetteHeaders returns h with canonical names, leaving out redacted
// values, the headers of the connection and those named in skip.
func cassetteHeaders(h tape.Headers, skip ...string) http.Header {
	out := http.Header{}
	for k, vs := range h {
		switch k {
		case "connection", "keep-alive", "transfer-encoding", "proxy-connection", "upgrade", "te", "trailer":
			continue
		}
		if slices.Contains(skip, k) {
			continue
		}
		for _, v := range vs {
			if v != tape.Redacted {
				out.Add(http.CanonicalHeaderKey(k), v)
			}
		}
	}
	return out
}

// statusLine is the status as net/http's Response.Status has it.
func statusLine(code int) string {
	s := strconv.Itoa(code)
	if t := http.StatusText(code); t != "" {
		s += " " + t
	}
	return s
}

// node is a YAML value: a scalar already written as YAML, a mapping
// (keys in order) or a sequence. Cassettes are written by this small
// emitter rather than a YAML library so that every string is one
// double-quoted line whose escapes keep every byte and show nothing that
// acts on a terminal (a cassette may be printed).
type node struct {
	scalar string
	keys   []string
	vals   []*node
	items  []*node
	isSeq  bool
}

func str(s string) *node { return &node{scalar: quote(s)} }

func num(n int64) *node { return &node{scalar: strconv.FormatInt(n, 10)} }

// body is a body as a YAML scalar: a double-quoted string, or !!binary
// base64 when it is not UTF-8.
func body(b []byte) *node {
	if !utf8.Valid(b) {
		return &node{scalar: "!!binary " + quote(base64.StdEncoding.EncodeToString(b))}
	}
	return str(string(b))
}

func mapping(kv ...any) *node {
	n := &node{}
	for i := 0; i < len(kv); i += 2 {
		n.keys = append(n.keys, kv[i].(string))
		n.vals = append(n.vals, kv[i+1].(*node))
	}
	return n
}

// formNode maps each form name, in sorted order, to its values.
func formNode(f url.Values) *node {
	return headerNode(http.Header(f))
}

// headerNode maps each header name, in sorted order, to its values.
func headerNode(h http.Header) *node {
	n := &node{}
	for _, k := range slices.Sorted(maps.Keys(h)) {
		vs := &node{isSeq: true}
		for _, v := range h[k] {
			vs.items = append(vs.items, str(v))
		}
		n.keys = append(n.keys, quote(k))
		n.vals = append(n.vals, vs)
	}
	return n
}

// quote writes s as a YAML double-quoted scalar on one line: printable
// ASCII and printable non-ASCII characters as they are, everything else
// (line breaks, control characters, bidi and other format characters,
// U+2028 and U+2029) as an escape, which YAML readers turn back into the
// same character.
func quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r >= 0x80 && unicode.IsPrint(r):
			b.WriteRune(r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			fmt.Fprintf(&b, `\U%08X`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// write appends n, a mapping or a sequence, to b as block lines at indent.
func (n *node) write(b *bytes.Buffer, indent int) {
	pad := strings.Repeat(" ", indent)
	switch {
	case n.isSeq:
		for _, it := range n.items {
			b.WriteString(pad + "- ")
			it.writeInline(b, indent+2)
		}
	default:
		for i, k := range n.keys {
			b.WriteString(pad + k + ":")
			n.vals[i].writeValue(b, indent+2)
		}
	}
}

// writeValue writes n after a key's colon.
func (n *node) writeValue(b *bytes.Buffer, indent int) {
	switch {
	case n.isSeq && len(n.items) == 0:
		b.WriteString(" []\n")
	case !n.isSeq && n.keys == nil && n.scalar == "":
		b.WriteString(" {}\n")
	case n.isSeq || n.keys != nil:
		b.WriteString("\n")
		n.write(b, indent)
	default:
		b.WriteString(" " + n.scalar + "\n")
	}
}

// writeInline writes n after a sequence item's dash: a scalar, or a
// mapping whose first key shares the dash's line.
func (n *node) writeInline(b *bytes.Buffer, indent int) {
	switch {
	case n.keys != nil:
		for i, k := range n.keys {
			if i > 0 {
				b.WriteString(strings.Repeat(" ", indent))
			}
			b.WriteString(k + ":")
			n.vals[i].writeValue(b, indent+2)
		}
	case n.isSeq && len(n.items) == 0:
		b.WriteString("[]\n")
	case n.isSeq:
		b.WriteString("\n")
		n.write(b, indent)
	case n.scalar == "":
		b.WriteString("{}\n")
	default:
		b.WriteString(n.scalar + "\n")
	}
}
