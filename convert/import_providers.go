package convert

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/sse"
	"github.com/tidwall/gjson"
)

// The recordings of the other providers' streams, as they are stored in the
// wild: Go httprr traces (langchaingo), nock recordings, js-genai
// recordings, and raw bodies in the framings beside SSE (AWS event-stream
// binary, Ollama NDJSON, Gemini JSON arrays, a provider's JSON response),
// any of them still in HTTP/1.1 chunked transfer framing.

// providerBinary imports what run would refuse as binary: an httprr trace
// holding a binary body, an AWS event-stream body, or a chunked body whose
// content is one of the framings. It reports whether b was one.
func (im *importer) providerBinary(b []byte) (bool, error) {
	switch {
	case bytes.HasPrefix(b, []byte("httprr trace v1\n")):
		im.format = "httprr trace"
		return true, im.httprr(b)
	case framing.Sniff(b) == framing.EventStream:
		im.format = "aws event-stream body"
		im.add(exchangeData{status: http.StatusOK, contentType: framing.EventStream.ContentType(), body: b})
		return true, nil
	}
	if inner, ok := dechunk(b); ok {
		im.format = "chunked body"
		im.add(exchangeData{status: http.StatusOK, contentType: framing.TypeOf(inner), body: inner,
			notes: []string{"the body was stored with its HTTP/1.1 chunked transfer framing, removed on import"}})
		return true, nil
	}
	return false, nil
}

// providerRecording imports the JSON recordings of the providers' SDK
// tests: a nock recording or a js-genai recording (whose "interactions"
// would otherwise be read as a cassette's). It reports whether doc was one.
func (im *importer) providerRecording(doc gjson.Result) (bool, error) {
	switch {
	case doc.IsArray() && doc.Get("0.scope").Exists() && doc.Get("0.method").Exists():
		im.format = "nock recording"
		return true, im.nock(doc)
	case doc.Get("interactions.0.response.bodySegments").Exists():
		im.format = "js-genai recording"
		im.genAIRecording(doc)
		return true, nil
	}
	return false, nil
}

// providerBody imports a provider's JSON body saved raw: a Gemini
// JSON-array stream or a JSON response (a payload of a known protocol, or
// an error). It reports whether doc was one.
func (im *importer) providerBody(trim []byte, doc gjson.Result) bool {
	switch {
	case doc.IsArray() && doc.Get("0").IsObject():
		im.format = "json array stream"
	case doc.IsObject() && (protocol.FromPayload(doc.Raw) != protocol.Unknown || doc.Get("error").Exists()):
		im.format = "json body"
	default:
		return false
	}
	im.add(exchangeData{status: http.StatusOK, contentType: "application/json", body: trim})
	return true
}

// ollamaLines reports whether b is Ollama's NDJSON (the first line an
// Ollama chunk): kept as it is, not wrapped in SSE events as JSONL is.
func ollamaLines(b []byte) bool {
	first, _, _ := bytes.Cut(bytes.TrimSpace(b), []byte("\n"))
	return protocol.FromPayload(string(bytes.TrimSpace(first))) == protocol.Ollama
}

// dechunk decodes a body still in HTTP/1.1 chunked transfer framing (hex
// size lines, CRLF, data, CRLF, ending with a zero-size chunk), and reports
// whether the whole of b is such a body.
func dechunk(b []byte) ([]byte, bool) {
	var out []byte
	for {
		nl := bytes.Index(b, []byte("\r\n"))
		if nl <= 0 || nl > 40 {
			return nil, false
		}
		sizeField, _, _ := bytes.Cut(b[:nl], []byte(";"))
		n, err := strconv.ParseUint(string(bytes.TrimSpace(sizeField)), 16, 32)
		if err != nil {
			return nil, false
		}
		b = b[nl+2:]
		if n == 0 {
			// Trailers, then the final blank line.
			return out, bytes.HasSuffix(b, []byte("\r\n"))
		}
		if uint64(len(b)) < n+2 || b[n] != '\r' || b[n+1] != '\n' {
			return nil, false
		}
		out = append(out, b[:n]...)
		b = b[n+2:]
	}
}

// splitFramed cuts a body into chunks where its framing ends events (SSE
// events, NDJSON lines, array elements, event-stream messages), as an
// upstream that writes and flushes once per event is read; a compressed or
// single-document body is one chunk. Joined, the chunks are body.
func splitFramed(ct, ce string, body []byte) [][]byte {
	if ce != "" && !strings.EqualFold(ce, "identity") {
		return [][]byte{body}
	}
	kind, _ := framing.Choose(ct, body[:min(len(body), 64)])
	switch {
	case kind == framing.SSE && strings.Contains(strings.ToLower(ct), "event-stream"):
		return sse.SplitEvents(body)
	case kind == framing.SSE, kind == framing.Unknown,
		kind == framing.NDJSON && framing.FromContentType(ct) != framing.NDJSON:
		return [][]byte{body} // not a stream, or a JSON document
	}
	var parts [][]byte
	last := 0
	p := framing.New(kind, nil)
	emit := func(f framing.Frame, _ []byte) {
		end := int(f.End)
		if kind == framing.NDJSON {
			// The line's LF (and CR) go with it.
			for end < len(body) && (body[end] == '\r' || body[end] == '\n') {
				end++
				if body[end-1] == '\n' {
					break
				}
			}
		}
		if end > last {
			parts = append(parts, body[last:end:end])
			last = end
		}
	}
	p.Feed(body, emit)
	p.Close(emit)
	if last < len(body) {
		parts = append(parts, body[last:])
	}
	return parts
}

// httprr imports a Go httprr trace: "httprr trace v1\n", then for each
// exchange "<request bytes> <response bytes>\n" and the raw request and
// response (a chunked response body decoded).
func (im *importer) httprr(b []byte) error {
	b = b[len("httprr trace v1\n"):]
	line := 1
	for n := 1; len(bytes.TrimSpace(b)) > 0; n++ {
		line++
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			return im.fail(line, "httprr record %d: no size line", n)
		}
		var reqLen, respLen int
		if _, err := fmt.Sscanf(string(b[:nl]), "%d %d", &reqLen, &respLen); err != nil || reqLen < 0 || respLen < 0 {
			return im.fail(line, "httprr record %d: size line %q: want two byte counts", n, b[:min(nl, 40)])
		}
		b = b[nl+1:]
		// Compared one at a time: two sizes near the largest int would
		// sum negative.
		if reqLen > len(b) || respLen > len(b)-reqLen {
			return im.fail(line, "httprr record %d: %d and %d bytes announced, %d left", n, reqLen, respLen, len(b))
		}
		rawReq, rawResp := b[:reqLen], b[reqLen:reqLen+respLen]
		line += bytes.Count(b[:reqLen+respLen], []byte("\n"))
		b = b[reqLen+respLen:]
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(rawReq)))
		if err != nil {
			return im.fail(line, "httprr record %d: request: %v", n, err)
		}
		reqBody, err := io.ReadAll(req.Body)
		if err != nil {
			return im.fail(line, "httprr record %d: request body: %v", n, err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(rawResp)), req)
		if err != nil {
			return im.fail(line, "httprr record %d: response: %v", n, err)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return im.fail(line, "httprr record %d: response body: %v", n, err)
		}
		scheme, host, path := splitURL(req.URL.String())
		h := resp.Header.Clone()
		h.Del("Content-Length") // the body as read, transfer framing removed
		h.Del("Transfer-Encoding")
		im.add(exchangeData{method: req.Method, scheme: scheme, host: host, url: path, reqHeaders: req.Header, reqBody: reqBody,
			status: resp.StatusCode, respHeaders: h, body: body})
	}
	return nil
}

// nock imports a nock recording: a JSON array of {scope, method, path,
// body, status, response, rawHeaders, reqheaders, responseIsBinary}.
func (im *importer) nock(doc gjson.Result) error {
	var err error
	doc.ForEach(func(k, e gjson.Result) bool {
		scheme, host, _ := splitURL(e.Get("scope").String())
		_, _, path := splitURL(e.Get("path").String())
		x := exchangeData{method: e.Get("method").String(), scheme: scheme, host: host, url: path, status: int(e.Get("status").Int())}
		if x.status == 0 {
			x.status = http.StatusOK
		}
		if rb := e.Get("body"); rb.Exists() {
			x.reqBody = []byte(rb.Raw)
			if rb.Type == gjson.String {
				x.reqBody = []byte(rb.String())
			}
		}
		x.reqHeaders = http.Header{}
		e.Get("reqheaders").ForEach(func(name, v gjson.Result) bool {
			x.reqHeaders.Add(name.String(), v.String())
			return true
		})
		x.respHeaders = http.Header{}
		raw := e.Get("rawHeaders").Array()
		for i := 0; i+1 < len(raw); i += 2 {
			x.respHeaders.Add(raw[i].String(), raw[i+1].String())
		}
		x.respHeaders.Del("Content-Length")
		x.respHeaders.Del("Transfer-Encoding")
		resp := e.Get("response")
		switch {
		case e.Get("responseIsBinary").Bool():
			if x.body, err = hex.DecodeString(resp.String()); err != nil {
				err = im.fail(0, "nock entry %d: binary response is not hex: %v", k.Int(), err)
				return false
			}
		case resp.Type == gjson.String:
			x.body = []byte(resp.String())
		default:
			x.body = []byte(resp.Raw)
		}
		im.add(x)
		return true
	})
	return err
}

// genAIRecording imports a js-genai test recording, whose request and
// response bodies are stored parsed, one JSON value per SSE event
// (bodySegments): the SSE body is rebuilt, one "data:" event per segment,
// and a note says so.
func (im *importer) genAIRecording(doc gjson.Result) {
	doc.Get("interactions").ForEach(func(_, it gjson.Result) bool {
		req, resp := it.Get("request"), it.Get("response")
		scheme, host, path := splitURL(req.Get("url").String())
		if h := req.Get("serverAddress").String(); host == "" && h != "" {
			scheme, host = req.Get("protocol").String(), h
		}
		x := exchangeData{method: req.Get("method").String(), scheme: scheme, host: host, url: path,
			status: int(resp.Get("statusCode").Int()), reqHeaders: http.Header{}, respHeaders: http.Header{},
			notes: []string{"imported from a js-genai recording, whose bodies are stored parsed: the body was rebuilt, one data: event per segment, not recorded byte for byte"}}
		if seg := req.Get("bodySegments.0"); seg.Exists() {
			x.reqBody = compactRaw(seg.Raw)
		}
		req.Get("headers").ForEach(func(k, v gjson.Result) bool { x.reqHeaders.Add(k.String(), v.String()); return true })
		resp.Get("headers").ForEach(func(k, v gjson.Result) bool { x.respHeaders.Add(k.String(), v.String()); return true })
		sseBody := strings.Contains(strings.ToLower(x.respHeaders.Get("Content-Type")), "event-stream")
		resp.Get("bodySegments").ForEach(func(_, seg gjson.Result) bool {
			if sseBody {
				x.body = append(append(append(x.body, "data: "...), compactRaw(seg.Raw)...), "\r\n\r\n"...)
			} else {
				x.body = append(x.body, compactRaw(seg.Raw)...)
			}
			return true
		})
		im.add(x)
		return true
	})
}

// compactRaw returns a JSON value without insignificant whitespace.
func compactRaw(raw string) []byte {
	var b bytes.Buffer
	if json.Compact(&b, []byte(raw)) != nil {
		return []byte(raw)
	}
	return b.Bytes()
}
