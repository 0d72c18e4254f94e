package convert

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
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
	creator := opts.Creator
	type nv struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	type postData struct {
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
		Encoding string `json:"encoding,omitempty"`
	}
	type content struct {
		Size        int64  `json:"size"`
		Compression int64  `json:"compression,omitempty"`
		MimeType    string `json:"mimeType"`
		Text        string `json:"text"`
		Encoding    string `json:"encoding,omitempty"`
	}
	type request struct {
		Method      string    `json:"method"`
		URL         string    `json:"url"`
		HTTPVersion string    `json:"httpVersion"`
		Headers     []nv      `json:"headers"`
		QueryString []nv      `json:"queryString"`
		Cookies     []nv      `json:"cookies"`
		HeadersSize int       `json:"headersSize"`
		BodySize    int       `json:"bodySize"`
		PostData    *postData `json:"postData,omitempty"`
	}
	type response struct {
		Status      int     `json:"status"`
		StatusText  string  `json:"statusText"`
		HTTPVersion string  `json:"httpVersion"`
		Headers     []nv    `json:"headers"`
		Cookies     []nv    `json:"cookies"`
		Content     content `json:"content"`
		RedirectURL string  `json:"redirectURL"`
		HeadersSize int     `json:"headersSize"`
		BodySize    int64   `json:"bodySize"`
	}
	type timings struct {
		Send    float64 `json:"send"`
		Wait    float64 `json:"wait"`
		Receive float64 `json:"receive"`
	}
	type entry struct {
		StartedDateTime string   `json:"startedDateTime"`
		Time            float64  `json:"time"`
		Request         request  `json:"request"`
		Response        response `json:"response"`
		Cache           struct{} `json:"cache"`
		Timings         timings  `json:"timings"`
		Comment         string   `json:"comment,omitempty"`
		// ResourceType and WebSocketMessages are the fields Chrome and
		// Firefox write for a WebSocket: its messages, not its frames.
		ResourceType      string         `json:"_resourceType,omitempty"`
		WebSocketMessages []harWSMessage `json:"_webSocketMessages,omitempty"`
	}
	headers := func(h tape.Headers) []nv {
		out := []nv{}
		for _, k := range slices.Sorted(maps.Keys(h)) {
			for _, v := range h[k] {
				out = append(out, nv{k, v})
			}
		}
		return out
	}
	queryString := func(u string) []nv {
		out := []nv{}
		_, q, ok := strings.Cut(u, "?")
		if !ok || q == "" {
			return out
		}
		for part := range strings.SplitSeq(q, "&") {
			k, v, _ := strings.Cut(part, "=")
			out = append(out, nv{unescapeQuery(k), unescapeQuery(v)})
		}
		return out
	}
	ms := func(ns int64) float64 { return float64(ns) / float64(time.Millisecond) }
	entries := []entry{}
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
			// The capture may predate the recorder's redaction, or be imported.
			req, secrets := tape.RedactStored(x.Request)
			e := entry{
				StartedDateTime: c.Header.Started.Add(time.Duration(req.T)).Format(time.RFC3339Nano),
				Request: request{
					Method: req.Method, URL: tape.BaseURL(&c.Header, req) + req.URL,
					HTTPVersion: "HTTP/1.1", Headers: headers(req.Headers),
					QueryString: queryString(req.URL), Cookies: []nv{}, HeadersSize: -1, BodySize: len(req.Body),
				},
				Comment: fmt.Sprintf("seam exchange %d", x.Ex),
			}
			if len(cs) > 1 {
				e.Comment = fmt.Sprintf("seam exchange %d of %s", x.Ex, c.Name)
			}
			if len(req.Body) > 0 {
				pd := &postData{MimeType: req.Headers.Get("content-type"), Text: string(req.Body)}
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
				wire := side.Body()
				if wsMessages != nil {
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
				e.Response = response{
					Status: side.Response.Status, HTTPVersion: "HTTP/1.1",
					Headers: headers(tape.RedactHeaders(http.Header(side.Response.Headers))), Cookies: []nv{},
					Content:     content{Size: int64(len(body)), Compression: int64(len(body) - len(wire)), MimeType: ct, Text: string(body)},
					HeadersSize: -1, BodySize: int64(len(wire)),
				}
				if !utf8.Valid(body) {
					e.Response.Content.Text, e.Response.Content.Encoding = b64(body), "base64"
				}
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
				e.Timings = timings{Wait: ms(max(wait, 0)), Receive: ms(max(end-x.Request.T-wait, 0))}
				e.Time = e.Timings.Wait + e.Timings.Receive
				if side.End != nil && side.End.Outcome != tape.Complete {
					e.Comment += ", " + string(side.End.Outcome)
					if side.End.Error != "" {
						e.Comment += ": " + side.End.Error
					}
				}
			}
			entries = append(entries, e)
		}
	}
	doc := map[string]any{"log": map[string]any{
		"version": "1.2",
		"creator": map[string]string{"name": "seam", "version": creator},
		"entries": entries,
	}}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write HAR: %w", err)
	}
	// A HAR may be printed: characters that act on a terminal are \u
	// escapes.
	if _, err := w.Write(visible.JSON(b.Bytes())); err != nil {
		return fmt.Errorf("write HAR: %w", err)
	}
	return nil
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
