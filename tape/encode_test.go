package tape

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// allBytes returns every byte value 0..255 in order: every control
// character, quotes, backslash, and bytes that are invalid UTF-8 on their own.
func allBytes() []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

// allControls returns every ASCII control character plus quotes, backslash,
// DEL and non-ASCII text: valid UTF-8 that must be escaped correctly.
func allControls() []byte {
	var b []byte
	for c := 0; c < 0x20; c++ {
		b = append(b, byte(c))
	}
	b = append(b, `"\/'<>&`...)
	b = append(b, 0x7f)
	b = append(b, "héllo 世界 🙂 \u2028\u2029 \ufffd"...)
	return b
}

func testHeader() Header {
	return Header{
		V: Version, Seam: "0.1.0", ID: "cap-1",
		Started:  time.Date(2026, 8, 22, 9, 30, 1, 123456789, time.UTC),
		Upstream: "https://api.openai.com",
		Engine:   Engine{Profile: "default", Switches: map[string]string{"b": "2", "a": "on \"x\""}},
	}
}

// encodeAll writes one line of every type, with tricky data, and returns the
// file and the records it holds, in order.
func encodeAll(t testing.TB) ([]byte, []Record) {
	t.Helper()
	h := testHeader()
	req := Request{Ex: 1, T: 5, Method: "POST", URL: "/v1/chat/completions?key=[redacted]",
		Headers: Headers{"content-type": {"application/json"}, "authorization": {Redacted}},
		Body:    []byte(`{"model":"gpt","messages":[{"role":"user","content":"hi\n\"there\""}]}`)}
	reqBin := Request{Ex: 2, T: 6, Method: "POST", Scheme: "https", Host: "api.anthropic.com", URL: "/v1/x", Headers: Headers{}, Body: []byte{0xff, 0, 'a'}, BodyTruncated: true}
	resp := Response{Ex: 1, Side: Upstream, T: 10, Status: 200, Headers: Headers{"content-type": {"text/event-stream"}, "x-multi": {"a", "b"}}}
	euro := []byte("€") // three bytes, split across two chunks
	chunks := []Chunk{
		{Ex: 1, Side: Upstream, T: 11, Off: 0, Data: allControls()},
		{Ex: 1, Side: Upstream, T: 12, Off: 40, Data: allBytes()},
		{Ex: 1, Side: Client, T: 13, Off: 0, Data: append([]byte("data: "), euro[:1]...)},
		{Ex: 1, Side: Client, T: 14, Off: 7, Data: euro[1:]},
		{Ex: 1, Side: Client, T: 15, Off: 9, Data: []byte{}},
	}
	end := End{Ex: 1, Side: Upstream, T: 20, Outcome: UpstreamError, Bytes: 296, Error: "read: connection reset by peer"}
	end2 := End{Ex: 1, Side: Client, T: 21, Outcome: Complete, Bytes: 9}
	note := Note{Ex: 1, T: 30, Text: "tab\there \"quoted\" ✓"}

	var buf []byte
	var recs []Record
	buf = AppendHeader(buf, h)
	recs = append(recs, Record{Kind: KindHeader, Header: &h})
	buf = AppendRequest(buf, req)
	recs = append(recs, Record{Kind: KindRequest, Request: &req})
	buf = AppendRequest(buf, reqBin)
	recs = append(recs, Record{Kind: KindRequest, Request: &reqBin})
	buf = AppendResponse(buf, resp)
	recs = append(recs, Record{Kind: KindResponse, Response: &resp})
	for i := range chunks {
		buf = AppendChunk(buf, chunks[i])
		recs = append(recs, Record{Kind: KindChunk, Chunk: &chunks[i]})
	}
	buf = AppendEnd(buf, end)
	recs = append(recs, Record{Kind: KindEnd, End: &end})
	buf = AppendEnd(buf, end2)
	recs = append(recs, Record{Kind: KindEnd, End: &end2})
	buf = AppendNote(buf, note)
	recs = append(recs, Record{Kind: KindNote, Note: &note})
	for i := range recs {
		recs[i].Line = i + 1
	}
	return buf, recs
}

func TestRoundTripEveryType(t *testing.T) {
	t.Parallel()
	file, want := encodeAll(t)
	d := NewDecoder(bytes.NewReader(file), "all.ndjson")
	for i, w := range want {
		got, err := d.Next()
		if err != nil {
			t.Fatalf("record %d: %v", i+1, err)
		}
		if !reflect.DeepEqual(normalize(got), normalize(w)) {
			t.Errorf("record %d:\n got %+v\nwant %+v", i+1, describe(got), describe(w))
		}
	}
	if _, err := d.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after last record: %v, want io.EOF", err)
	}
	if w := d.Warnings(); len(w) != 0 {
		t.Errorf("warnings: %v", w)
	}
}

// normalize makes empty and nil byte slices compare equal and times compare by instant.
func normalize(r Record) Record {
	if r.Chunk != nil && len(r.Chunk.Data) == 0 {
		c := *r.Chunk
		c.Data = nil
		r.Chunk = &c
	}
	if r.Header != nil {
		h := *r.Header
		h.Started = h.Started.UTC()
		r.Header = &h
	}
	return r
}

func describe(r Record) string {
	b, _ := json.Marshal(r)
	s := string(b)
	if r.Chunk != nil {
		s += " data=" + string(r.Chunk.Data)
	}
	return s
}

// TestForwardFields checks where the fields of a forward-proxy recording go
// (FORMAT.md: scheme and host after method; insecure after upstream) and
// that BaseURL prefers the request's own host.
func TestForwardFields(t *testing.T) {
	t.Parallel()
	h := Header{V: 1, Seam: "x", ID: "i", Started: time.Unix(0, 0).UTC(), Insecure: true, Engine: Engine{Profile: "passthrough"}}
	line := string(AppendHeader(nil, h))
	if !strings.Contains(line, `"upstream":"","insecure":true,"engine"`) {
		t.Errorf("header %s", line)
	}
	r := Request{Ex: 1, Method: "GET", Scheme: "https", Host: "127.0.0.1:8443", URL: "/v1/realtime?model=m"}
	line = string(AppendRequest(nil, r))
	if !strings.Contains(line, `"method":"GET","scheme":"https","host":"127.0.0.1:8443","url":"/v1/realtime?model=m"`) {
		t.Errorf("request %s", line)
	}
	if line := string(AppendRequest(nil, Request{Ex: 1, Method: "GET", URL: "/"})); strings.Contains(line, "host") || strings.Contains(line, "scheme") {
		t.Errorf("reverse-mode request names a host: %s", line)
	}
	if got := BaseURL(&h, &r); got != "https://127.0.0.1:8443" {
		t.Errorf("BaseURL = %q", got)
	}
	rev := Header{Upstream: "https://api.openai.com/"}
	if got := BaseURL(&rev, &Request{URL: "/v1"}); got != "https://api.openai.com" {
		t.Errorf("BaseURL reverse = %q", got)
	}
}

func TestAppendLinesAreValidJSON(t *testing.T) {
	t.Parallel()
	file, _ := encodeAll(t)
	lines := strings.Split(strings.TrimSuffix(string(file), "\n"), "\n")
	for i, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Errorf("line %d is not JSON: %v\n%s", i+1, err, line)
			continue
		}
		if !strings.HasPrefix(line, `{"type":"`) {
			t.Errorf("line %d does not start with the type: %s", i+1, line)
		}
	}
}

func TestChunkDataField(t *testing.T) {
	t.Parallel()
	euro := []byte("€")
	tests := []struct {
		name    string
		data    []byte
		wantB64 bool
	}{
		{"ascii", []byte("data: {}\n\n"), false},
		{"controls and quotes", allControls(), false},
		{"non-ascii", []byte("世界🙂"), false},
		{"rune split, first half", euro[:2], true},
		{"rune split, second half", euro[2:], true},
		{"nul and 0xff", []byte{0, 0xff}, true},
		{"empty", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			line := AppendChunk(nil, Chunk{Ex: 1, Side: Client, Data: tt.data})
			if got := bytes.Contains(line, []byte(`"data_b64":`)); got != tt.wantB64 {
				t.Errorf("data_b64 used = %v, want %v: %s", got, tt.wantB64, line)
			}
			if bytes.Contains(line, []byte(`\ufffd`)) {
				t.Errorf("replacement character written: %s", line)
			}
			// The encoding/json decoder must agree on the decoded bytes.
			rec, err := decodeKind(KindChunk, line)
			if err != nil {
				t.Fatalf("encoding/json rejects %s: %v", line, err)
			}
			if got := rec.Chunk.Data; !bytes.Equal(got, tt.data) {
				t.Errorf("encoding/json decodes %q, want %q", got, tt.data)
			}
		})
	}
}

func TestSplitRuneJoinsExactly(t *testing.T) {
	t.Parallel()
	text := []byte("data: {\"content\":\"naïve 世界 🙂\"}\n\n")
	var file []byte
	file = AppendHeader(file, testHeader())
	// Split after every byte: most pieces are invalid UTF-8 on their own.
	for i := range text {
		file = AppendChunk(file, Chunk{Ex: 1, Side: Upstream, Off: int64(i), Data: text[i : i+1]})
	}
	c, err := Read(bytes.NewReader(file), "split.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Exchanges[0].Upstream.Body(); !bytes.Equal(got, text) {
		t.Errorf("body %q, want %q", got, text)
	}
}

func TestInvalidUTF8InStringFieldsIsReplaced(t *testing.T) {
	t.Parallel()
	line := AppendNote(nil, Note{Ex: 1, Text: "a\xffb"})
	var n Note
	if err := json.Unmarshal(line, &n); err != nil {
		t.Fatal(err)
	}
	if n.Text != "a\ufffdb" {
		t.Errorf("text %q, want %q", n.Text, "a\ufffdb")
	}
}

// TestAppendJSONString: strings are written byte for byte as JavaScript's
// JSON.stringify writes them (no HTML escaping, U+2028 kept), with invalid
// UTF-8 replaced.
func TestAppendJSONString(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"a<b>&c":      `"a<b>&c"`,
		"q\"\\\n\r\t": `"q\"\\\n\r\t"`,
		"\x01\x1f":    `"\u0001\u001f"`,
		"’°\u2028":    "\"’°\u2028\"",
		"bad\xffutf8": "\"bad\ufffdutf8\"",
		"":            `""`,
	} {
		if got := string(AppendJSONString([]byte("x"), in)); got != "x"+want {
			t.Errorf("AppendJSONString(%q) = %s, want x%s", in, got, want)
		}
	}
}

// TestHeaderImportedNoStart: an imported capture's header says where it came
// from, and a start time the source did not record is left out rather than
// written as year 1; both decode back as written.
func TestHeaderImportedNoStart(t *testing.T) {
	t.Parallel()
	h := Header{V: Version, Seam: "0.1.0", ID: "import-1", Upstream: "https://api.openai.com",
		Engine: Engine{Profile: "passthrough"}, Imported: &Imported{Format: "go-vcr cassette v2", File: "x\".yaml", Timing: TimingPartial}}
	line := AppendHeader(nil, h)
	want := `{"type":"capture","v":` + strconv.Itoa(Version) + `,"seam":"0.1.0","id":"import-1","upstream":"https://api.openai.com","engine":{"profile":"passthrough"},"imported":{"format":"go-vcr cassette v2","file":"x\".yaml","timing":"partial"}}` + "\n"
	if string(line) != want {
		t.Errorf("header line\n got %s\nwant %s", line, want)
	}
	d := NewDecoder(bytes.NewReader(line), "h.ndjson")
	rec, err := d.Next()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*rec.Header, h) || !rec.Header.Started.IsZero() {
		t.Errorf("decoded %+v, want %+v", rec.Header, h)
	}
}
