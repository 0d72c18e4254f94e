package inspect

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/seam-dev/seam/sse"
	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// Import turns a raw recording into a capture, so `seam import` can write
// it with tape's encoder. It accepts, told apart by content:
//   - a raw SSE body (.sse): one exchange, the body as the upstream side;
//   - JSONL, one JSON payload per line (vercel/ai *.chunks.txt): each line
//     becomes an SSE event, named by its "type" when it has one;
//   - a VCR YAML cassette (pydantic-ai, go-vcr): one exchange per
//     interaction, request method, URI and body kept, the response body
//     string as the upstream side;
//   - an HTTP-snapshot JSON {metadata, request, stream[]} whose stream holds
//     parsed events {event, data}.
//
// Chunks are synthesised: one per SSE event or JSONL line, 1 ms apart.
func Import(r io.Reader, name string) (*tape.Capture, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("import %s: %w", name, err)
	}
	c := &tape.Capture{Name: name, Header: tape.Header{V: tape.Version, Engine: tape.Engine{Profile: "import"}}}
	trim := bytes.TrimSpace(b)
	switch {
	case bytes.HasPrefix(trim, []byte("interactions:")):
		if err := importCassette(c, b); err != nil {
			return nil, fmt.Errorf("import %s: %w", name, err)
		}
	case bytes.HasPrefix(trim, []byte("{")) && gjson.ValidBytes(trim) && gjson.GetBytes(trim, "stream").IsArray():
		importSnapshot(c, trim)
	case bytes.HasPrefix(trim, []byte("{")):
		addExchange(c, "", "", nil, 200, splitJSONL(b))
	default:
		addExchange(c, "", "", nil, 200, sse.SplitEvents(b))
	}
	if len(c.Exchanges) == 0 {
		return nil, fmt.Errorf("import %s: no exchanges found", name)
	}
	return c, nil
}

func addExchange(c *tape.Capture, method, url string, reqBody []byte, status int, events [][]byte) {
	ex := len(c.Exchanges) + 1
	x := &tape.Exchange{Ex: ex}
	if method != "" || url != "" || reqBody != nil {
		x.Request = &tape.Request{Ex: ex, Method: method, URL: url, Body: reqBody, Headers: tape.Headers{}}
	}
	t := int64(ex) * 1e9
	x.Upstream.Response = &tape.Response{Ex: ex, Side: tape.Upstream, T: t, Status: status, Headers: tape.Headers{"content-type": {"text/event-stream"}}}
	off := int64(0)
	for _, e := range events {
		t += 1e6
		x.Upstream.Chunks = append(x.Upstream.Chunks, tape.Chunk{Ex: ex, Side: tape.Upstream, T: t, Off: off, Data: e})
		off += int64(len(e))
	}
	x.Upstream.End = &tape.End{Ex: ex, Side: tape.Upstream, T: t + 1e6, Outcome: tape.Complete, Bytes: off}
	c.Exchanges = append(c.Exchanges, x)
}

// splitJSONL wraps each JSON line as an SSE event, named by its type.
func splitJSONL(b []byte) [][]byte {
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e []byte
		if typ := gjson.GetBytes(line, "type").String(); typ != "" && !strings.ContainsAny(typ, "\r\n") {
			e = append(e, "event: "+typ+"\n"...)
		}
		e = append(append(append(e, "data: "...), line...), "\n\n"...)
		out = append(out, e)
	}
	return out
}

func importSnapshot(c *tape.Capture, b []byte) {
	r := gjson.ParseBytes(b)
	var events [][]byte
	r.Get("stream").ForEach(func(_, e gjson.Result) bool {
		if e.Get("type").String() == "done" {
			return true
		}
		var ev []byte
		if n := e.Get("event").String(); n != "" {
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
		ev = append(append(append(ev, "data: "...), raw...), "\n\n"...)
		events = append(events, ev)
		return true
	})
	url := r.Get("metadata.route").String()
	var body []byte
	if rb := r.Get("request.body"); rb.Exists() {
		body = []byte(rb.Raw)
	}
	addExchange(c, "POST", url, body, 200, events)
}

// importCassette reads a VCR cassette with the minimal YAML reader.
func importCassette(c *tape.Capture, b []byte) error {
	doc, err := parseYAML(b)
	if err != nil {
		return err
	}
	root, _ := doc.(map[string]any)
	list, _ := root["interactions"].([]any)
	for _, it := range list {
		m, _ := it.(map[string]any)
		req, _ := m["request"].(map[string]any)
		resp, _ := m["response"].(map[string]any)
		method, _ := req["method"].(string)
		uri, _ := req["uri"].(string)
		if i := strings.Index(uri, "://"); i >= 0 {
			if j := strings.IndexByte(uri[i+3:], '/'); j >= 0 {
				uri = uri[i+3+j:]
			}
		}
		var reqBody []byte
		if pb, ok := req["parsed_body"]; ok {
			reqBody, _ = json.Marshal(pb)
		} else if s, ok := req["body"].(string); ok {
			reqBody = []byte(s)
		}
		status := 200
		if st, ok := resp["status"].(map[string]any); ok {
			if code, ok := st["code"].(float64); ok {
				status = int(code)
			}
		}
		body := ""
		switch v := resp["body"].(type) {
		case map[string]any:
			body, _ = v["string"].(string)
		case string:
			body = v
		}
		addExchange(c, method, uri, reqBody, status, sse.SplitEvents([]byte(body)))
	}
	return nil
}
