package convert_test

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
	"testing/quick"

	"go.yaml.in/yaml/v3"

	"github.com/seam-dev/seam/convert"
	"github.com/seam-dev/seam/tape"
)

// hostileCapture has an exchange whose bodies hold what acts on a
// terminal, line breaks YAML folds, bytes that are not UTF-8 and a
// gzip body, with a request carrying credentials, and a WebSocket.
func hostileCapture(t *testing.T) (*tape.Capture, [][]byte) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("data: {\"x\":1}\n\n"))
	zw.Close()
	bodies := [][]byte{
		[]byte("data: \x1b[31mred\x1b[0m \u202egnp.exe\u2028next\r\n\r\n  trailing  \n\tdata: \"q\" \\ \u00e9\U0001F600\ufeff\x00\x7f\u0085\n\n"),
		{0xff, 0xfe, 0x00, 'a', 0x80},
		gz.Bytes(),
	}
	c := &tape.Capture{Name: "hostile.ndjson", Header: tape.Header{Upstream: "https://api.example.com"}}
	for i, b := range bodies {
		headers := tape.Headers{"content-type": {"text/event-stream"}}
		if i == 2 {
			headers["content-encoding"] = []string{"gzip"}
		}
		c.Exchanges = append(c.Exchanges, &tape.Exchange{Ex: i + 1,
			Request: &tape.Request{Method: "POST", URL: "/v1/chat?alt=sse&key=AIzaSecretSecret",
				Headers: tape.Headers{"authorization": {"Bearer sk-live-secret-0123456789"}, "content-type": {"application/json"}},
				Body:    []byte(`{"model":"m","api_key":"sk-body-secret-0123456789"}`)},
			Client: tape.SideData{Response: &tape.Response{Status: 200, Headers: headers},
				Chunks: []tape.Chunk{{Data: b[:len(b)/2]}, {Off: int64(len(b) / 2), Data: b[len(b)/2:]}}},
		})
	}
	c.Exchanges = append(c.Exchanges, &tape.Exchange{Ex: 4,
		Request: &tape.Request{Method: "GET", URL: "/v1/realtime", Headers: tape.Headers{}},
		Client:  tape.SideData{Response: &tape.Response{Status: 101, Headers: tape.Headers{}}}})
	return c, bodies
}

func TestCassettesHostile(t *testing.T) {
	c, bodies := hostileCapture(t)
	for name, write := range map[string]func(*bytes.Buffer) error{
		"govcr": func(b *bytes.Buffer) error {
			return convert.WriteGoVCR(b, []*tape.Capture{c}, convert.CassetteOptions{})
		},
		"vcrpy": func(b *bytes.Buffer) error {
			return convert.WriteVCRpy(b, []*tape.Capture{c}, convert.CassetteOptions{})
		},
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, bad := range []string{"\x1b", "\u202e", "\u2028", "\ufeff", "\x00", "\r", "sk-live-secret", "sk-body-secret", "AIzaSecretSecret", "Authorization", "/v1/realtime"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: the cassette holds %q", name, bad)
			}
		}
		// What a YAML reader makes of the bodies is every byte.
		var doc struct {
			Interactions []struct {
				Request struct {
					Body any    `yaml:"body"`
					URL  string `yaml:"url"`
					URI  string `yaml:"uri"`
				} `yaml:"request"`
				Response struct {
					Body any `yaml:"body"`
				} `yaml:"response"`
			} `yaml:"interactions"`
		}
		if err := yaml.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		if len(doc.Interactions) != len(bodies) {
			t.Fatalf("%s: %d interactions, want %d (the WebSocket left out)", name, len(doc.Interactions), len(bodies))
		}
		for i, it := range doc.Interactions {
			got := it.Response.Body
			if m, ok := got.(map[string]any); ok { // VCR.py: body: {string: ...}
				got = m["string"]
			}
			var gb []byte
			switch v := got.(type) {
			case string:
				gb = []byte(v)
			case []byte:
				gb = v
			}
			if !bytes.Equal(gb, bodies[i]) {
				t.Errorf("%s: interaction %d: body %q, want %q", name, i, gb, bodies[i])
			}
			if u := it.Request.URL + it.Request.URI; u != "https://api.example.com/v1/chat?alt=sse&key=[redacted]" {
				t.Errorf("%s: url %q", name, u)
			}
		}
	}
}

// Every string a cassette quotes reads back the same.
func TestCassetteQuoteRoundTrip(t *testing.T) {
	f := func(s string) bool {
		c := &tape.Capture{Header: tape.Header{Upstream: "http://u"}, Exchanges: []*tape.Exchange{{Ex: 1,
			Request: &tape.Request{Method: "POST", URL: "/", Headers: tape.Headers{}},
			Client:  tape.SideData{Response: &tape.Response{Status: 200, Headers: tape.Headers{}}, Chunks: []tape.Chunk{{Data: []byte(s)}}}}}}
		var b bytes.Buffer
		if err := convert.WriteGoVCR(&b, []*tape.Capture{c}, convert.CassetteOptions{}); err != nil {
			return false
		}
		var doc struct {
			Interactions []struct {
				Response struct {
					Body string `yaml:"body"`
				} `yaml:"response"`
			} `yaml:"interactions"`
		}
		return yaml.Unmarshal(b.Bytes(), &doc) == nil && len(doc.Interactions) == 1 && doc.Interactions[0].Response.Body == s
	}
	if err := quick.Check(f, &quick.Config{MaxCount: 2000}); err != nil {
		t.Fatal(err)
	}
}

// A cassette of nothing is an empty list, which the libraries load.
func TestCassetteEmpty(t *testing.T) {
	for name, write := range map[string]func(*bytes.Buffer) error{
		"govcr": func(b *bytes.Buffer) error { return convert.WriteGoVCR(b, nil, convert.CassetteOptions{}) },
		"vcrpy": func(b *bytes.Buffer) error { return convert.WriteVCRpy(b, nil, convert.CassetteOptions{}) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Version      int   `yaml:"version"`
			Interactions []any `yaml:"interactions"`
		}
		if err := yaml.Unmarshal(b.Bytes(), &doc); err != nil || doc.Version == 0 || doc.Interactions == nil || len(doc.Interactions) != 0 {
			t.Errorf("%s: %v: %q", name, err, b.String())
		}
	}
}
