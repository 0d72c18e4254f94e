package convert

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/seam-dev/seam/tape"
)

// harLog is the part of an HTTP Archive (HAR 1.2) an import reads.
type harLog struct {
	Log struct {
		Entries []harEntry `json:"entries"`
	} `json:"log"`
}

type harEntry struct {
	StartedDateTime string  `json:"startedDateTime"`
	Time            float64 `json:"time"`
	Request         struct {
		Method   string      `json:"method"`
		URL      string      `json:"url"`
		Headers  []harHeader `json:"headers"`
		PostData *struct {
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
			// Encoding "base64" is not in HAR 1.2 but written by seam and
			// some browsers for bodies that are not text.
			Encoding string `json:"encoding"`
		} `json:"postData"`
	} `json:"request"`
	Response struct {
		Status  int         `json:"status"`
		Headers []harHeader `json:"headers"`
		Content struct {
			Size     int64   `json:"size"`
			MimeType string  `json:"mimeType"`
			Text     *string `json:"text"`
			Encoding string  `json:"encoding"`
		} `json:"content"`
	} `json:"response"`
	Timings map[string]float64 `json:"timings"`
}

type harHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// har imports each entry of a HAR file as an exchange. Times come from the
// entry: startedDateTime (relative to the first entry, which becomes the
// capture's start), the timings up to wait (first byte) and the entry's
// total time (end). HAR records no time per chunk.
func (im *importer) har(b []byte) error {
	var h harLog
	if err := json.Unmarshal(b, &h); err != nil {
		return im.fail(0, "a HAR file that does not decode: %v", err)
	}
	im.timing = tape.TimingPartial
	var start time.Time
	for i, e := range h.Log.Entries {
		n := i + 1
		scheme, host, path := splitURL(e.Request.URL)
		x := exchangeData{
			method: e.Request.Method, url: path, scheme: scheme, host: host,
			reqHeaders: harHeaders(e.Request.Headers),
			status:     e.Response.Status, respHeaders: harHeaders(e.Response.Headers),
			contentType: e.Response.Content.MimeType,
		}
		if pd := e.Request.PostData; pd != nil && pd.Text != "" {
			body, err := harText(pd.Text, pd.Encoding)
			if err != nil {
				return im.fail(0, "entry %d: request postData: %v", n, err)
			}
			x.reqBody = body
			if x.reqHeaders.Get("Content-Type") == "" && pd.MimeType != "" {
				x.reqHeaders.Set("Content-Type", pd.MimeType)
			}
		}
		switch c := e.Response.Content; {
		case c.Text != nil:
			body, err := harText(*c.Text, c.Encoding)
			if err != nil {
				return im.fail(0, "entry %d: response content: %v", n, err)
			}
			x.body = body
			if c.Size > int64(len(body)) && c.Encoding == "" {
				x.notes = append(x.notes, fmt.Sprintf("the HAR holds %d of the body's %d bytes", len(body), c.Size))
			}
		case c.Size > 0:
			x.notes = append(x.notes, fmt.Sprintf("the HAR does not hold the response body (%d bytes)", c.Size))
		}
		if e.Response.Status == 0 {
			x.outcome, x.errText = tape.UpstreamError, "no response (HAR status 0)"
		}
		if t, err := time.Parse(time.RFC3339Nano, e.StartedDateTime); err == nil {
			if start.IsZero() {
				start = t
				im.c.Header.Started = t
			}
			x.t = max(int64(t.Sub(start)), 0)
		}
		x.first, x.end = x.t, x.t
		if wait, ok := harFirstByte(e.Timings); ok {
			x.first = x.t + wait
		}
		if e.Time > 0 {
			x.end = x.t + msToNs(e.Time)
		}
		im.add(x)
	}
	return nil
}

// harFirstByte returns the time from the request's start to the first
// response byte: the sum of the phases up to wait (-1 marks a phase that
// does not apply; ssl is part of connect).
func harFirstByte(t map[string]float64) (int64, bool) {
	if _, ok := t["wait"]; !ok {
		return 0, false
	}
	var ns int64
	for _, k := range []string{"blocked", "dns", "connect", "send", "wait"} {
		if v := t[k]; v > 0 {
			ns += msToNs(v)
		}
	}
	return ns, true
}

func msToNs(ms float64) int64 {
	if ms <= 0 || ms > float64(1<<62)/1e6 {
		return 0
	}
	return int64(ms * 1e6)
}

func harHeaders(hs []harHeader) http.Header {
	h := http.Header{}
	for _, kv := range hs {
		if kv.Name == "" || kv.Name[0] == ':' {
			continue // HTTP/2 pseudo-headers are not headers
		}
		h.Add(kv.Name, kv.Value)
	}
	return h
}

func harText(text, encoding string) ([]byte, error) {
	switch encoding {
	case "":
		return []byte(text), nil
	case "base64":
		return base64.StdEncoding.DecodeString(text)
	}
	return nil, fmt.Errorf("unknown encoding %q", encoding)
}
