package convert

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible"
)

// WriteHAR writes c as an HTTP Archive 1.2 document: one entry per exchange
// with its request, the response as the client received it (the upstream's,
// when the client side was not recorded), and its timings. What a capture
// made before the recorder redacted bodies (or imported from another tool)
// may still hold is redacted as the recorder would (see [tape.RedactStored]),
// and the secret values taken out of a request body are masked where the
// response echoes them.
func WriteHAR(w io.Writer, c *tape.Capture, creator string) error {
	return WriteHARs(w, []*tape.Capture{c}, HAROptions{Creator: creator})
}

// HAROptions tune WriteHARWith and WriteHARs.
type HAROptions struct {
	// Creator is the version of seam written as the HAR creator.
	Creator string
	// Decode, when set, decodes a response body sent with a
	// Content-Encoding: HAR's content.text is the decoded body (with
	// content.compression the bytes saved) while bodySize stays the wire
	// size. A body it cannot decode is written as it came, and the entry's
	// comment says why.
	Decode func(body []byte, contentEncoding string) ([]byte, error)
	// Context, when set, stops the writing once it is done, before the
	// next exchange, with its error (nothing is written then).
	Context context.Context
}

// WriteHARWith is WriteHAR with options.
func WriteHARWith(w io.Writer, c *tape.Capture, opts HAROptions) error {
	return WriteHARs(w, []*tape.Capture{c}, opts)
}

// WriteHARs writes the exchanges of several captures as one HTTP Archive,
// as WriteHAR writes one; each entry's comment names its capture when
// there are several.
func WriteHARs(w io.Writer, cs []*tape.Capture, opts HAROptions) error {
	entries := []harOutEntry{}
	for _, c := range cs {
		for _, x := range c.Exchanges {
			if opts.Context != nil {
				if err := opts.Context.Err(); err != nil {
					return fmt.Errorf("write HAR: %w", err)
				}
			}
			if x.Request == nil {
				continue
			}
			entries = append(entries, harEntryOf(c, x, len(cs) > 1, opts))
		}
	}
	return encodeHAR(w, opts.Creator, entries)
}

// harEntryOf is exchange x of capture c as a HAR entry: its request
// redacted, the response its client received (the upstream's when the
// client side was not recorded) and, for a WebSocket, its messages. multi
// says the archive holds several captures, so the comment names c.
func harEntryOf(c *tape.Capture, x *tape.Exchange, multi bool, opts HAROptions) harOutEntry {
	// The capture may predate the recorder's redaction, or be imported.
	req, secrets := tape.RedactStored(x.Request)
	e := harOutEntry{
		StartedDateTime: c.Header.Started.Add(time.Duration(req.T)).Format(time.RFC3339Nano),
		Request: harRequest{
			Method: req.Method, URL: tape.BaseURL(&c.Header, req) + req.URL,
			HTTPVersion: "HTTP/1.1", Headers: harOutHeaders(req.Headers),
			QueryString: harQuery(req.URL), Cookies: []harNV{}, HeadersSize: -1, BodySize: len(req.Body),
		},
		Comment: fmt.Sprintf("seam exchange %d", x.Ex),
	}
	if multi {
		e.Comment = fmt.Sprintf("seam exchange %d of %s", x.Ex, c.Name)
	}
	if len(req.Body) > 0 {
		pd := &harPostData{MimeType: req.Headers.Get("content-type"), Text: string(req.Body)}
		if !utf8.Valid(req.Body) {
			pd.Text, pd.Encoding = b64(req.Body), "base64"
		}
		e.Request.PostData = pd
	}
	side := &x.Client
	if side.Response == nil {
		side = &x.Upstream
	}
	wsMessages, wsComment := harWebSocket(x, c.Header.Started, secrets)
	if wsMessages != nil {
		e.ResourceType, e.WebSocketMessages = "websocket", wsMessages
		e.Comment += wsComment
	}
	if side.Response != nil {
		harResponseOf(&e, x, side, secrets, wsMessages != nil, opts)
	}
	return e
}

// harResponseOf fills e's response, timings and comment from side, the
// side of x the entry shows: its body decoded when opts can, the request's
// secrets masked where it echoes them; a WebSocket's frames (ws) are left
// out of the body, since its messages are listed.
func harResponseOf(e *harOutEntry, x *tape.Exchange, side *tape.SideData, secrets []string, ws bool, opts HAROptions) {
	wire := side.Body()
	if ws {
		wire = nil // the frames are in _webSocketMessages
	}
	body := wire
	if ce := strings.Join(side.Response.Headers["content-encoding"], ", "); ce != "" && opts.Decode != nil {
		if dec, err := opts.Decode(wire, ce); err != nil {
			e.Comment += ", body not decoded (" + err.Error() + ")"
		} else {
			body = dec
		}
	}
	body, _ = tape.MaskSecrets(body, secrets, nil)
	ct := side.Response.Headers.Get("content-type")
	e.Response = harResponse{
		Status: side.Response.Status, HTTPVersion: "HTTP/1.1",
		Headers: harOutHeaders(tape.RedactHeaders(http.Header(side.Response.Headers))), Cookies: []harNV{},
		Content:     harContent{Size: int64(len(body)), Compression: int64(len(body) - len(wire)), MimeType: ct, Text: string(body)},
		HeadersSize: -1, BodySize: int64(len(wire)),
	}
	if !utf8.Valid(body) {
		e.Response.Content.Text, e.Response.Content.Encoding = b64(body), "base64"
	}
	e.Timings = harTimingsOf(x, side)
	e.Time = e.Timings.Wait + e.Timings.Receive
	if side.End != nil && side.End.Outcome != tape.Complete {
		e.Comment += ", " + string(side.End.Outcome)
		if side.End.Error != "" {
			e.Comment += ": " + side.End.Error
		}
	}
}

// harTimingsOf is the wait (request to first byte) and receive (first
// byte to the side's end) of side, in milliseconds.
func harTimingsOf(x *tape.Exchange, side *tape.SideData) harTimings {
	wait := side.Response.T - x.Request.T
	if len(side.Chunks) > 0 {
		wait = side.Chunks[0].T - x.Request.T
	}
	end := side.Response.T
	if side.End != nil {
		end = side.End.T
	} else if n := len(side.Chunks); n > 0 {
		end = side.Chunks[n-1].T
	}
	return harTimings{Wait: ms(max(wait, 0)), Receive: ms(max(end-x.Request.T-wait, 0))}
}

// ms is a duration in nanoseconds as HAR's milliseconds.
func ms(ns int64) float64 { return float64(ns) / float64(time.Millisecond) }

// encodeHAR writes the archive of entries, indented, with characters that
// act on a terminal as \u escapes.
func encodeHAR(w io.Writer, creator string, entries []harOutEntry) error {
	doc := map[string]any{"log": map[string]any{
		"version": "1.2",
		"creator": map[string]string{"name": "seam", "version": creator},
		"entries": entries,
	}}
	// A HAR may be printed: characters that act on a terminal are \u
	// escapes.
	b, err := visible.EncodeJSON(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("write HAR: %w", err)
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write HAR: %w", err)
	}
	return nil
}

// harOutHeaders lists h as HAR name/value pairs, names sorted.
func harOutHeaders(h tape.Headers) []harNV {
	out := []harNV{}
	for _, k := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[k] {
			out = append(out, harNV{k, v})
		}
	}
	return out
}

// harQuery lists the query of URL u as HAR name/value pairs, unescaped.
func harQuery(u string) []harNV {
	out := []harNV{}
	_, q, ok := strings.Cut(u, "?")
	if !ok || q == "" {
		return out
	}
	for part := range strings.SplitSeq(q, "&") {
		k, v, _ := strings.Cut(part, "=")
		out = append(out, harNV{unescapeQuery(k), unescapeQuery(v)})
	}
	return out
}

// unescapeQuery decodes a query name or value, keeping it as it is when it
// is not valid escaping.
func unescapeQuery(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
