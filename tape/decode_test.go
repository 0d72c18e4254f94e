package tape

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

const headerLine = `{"type":"capture","v":1,"seam":"0.1.0","id":"c","started":"2026-08-22T09:30:00Z","upstream":"http://127.0.0.1:1","engine":{"profile":"default"}}` + "\n"

// decodeAll reads every record and every per-line error until io.EOF or a
// fatal error.
func decodeAll(t *testing.T, file, name string) (recs []Record, lineErrs []error, fatal error, d *Decoder) {
	t.Helper()
	d = NewDecoder(strings.NewReader(file), name)
	for range 1000 {
		rec, err := d.Next()
		if errors.Is(err, io.EOF) {
			return recs, lineErrs, nil, d
		}
		if err != nil {
			var lerr *LineError
			if errors.As(err, &lerr) && d.Header() != nil {
				lineErrs = append(lineErrs, err)
				continue
			}
			// A fatal error must be sticky.
			if _, err2 := d.Next(); err2 == nil || err2.Error() != err.Error() {
				t.Errorf("fatal error not sticky: first %v, then %v", err, err2)
			}
			return recs, lineErrs, err, d
		}
		recs = append(recs, rec)
	}
	t.Fatal("decoder does not stop")
	return
}

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	chunk := `{"type":"chunk","ex":1,"side":"upstream","t":1,"off":0,"data":"hi"}` + "\n"
	tests := []struct {
		name      string
		file      string
		wantRecs  int
		wantFatal string // substring; "" means no fatal error
		wantLine  []string
		wantWarn  []string
	}{
		{name: "empty file", file: "", wantFatal: "x.ndjson: empty capture: no \"capture\" header line"},
		{name: "only blank lines", file: "\n\n  \n", wantFatal: "empty capture"},
		{name: "no header", file: chunk, wantFatal: `x.ndjson:1: not a capture: first line is a "chunk" line, want a "capture" header`},
		{name: "not json", file: "hello\n", wantFatal: "x.ndjson:1: malformed line"},
		{name: "newer version", file: strings.Replace(headerLine, `"v":1`, `"v":4`, 1),
			wantFatal: "x.ndjson:1: capture format v4 is newer than this seam supports (v3); upgrade seam"},
		{name: "newer version with new header shape", file: `{"type":"capture","v":5,"engine":"turbo","started":17}` + "\n",
			wantFatal: "x.ndjson:1: capture format v5 is newer than this seam supports (v3); upgrade seam"},
		{name: "missing version", file: strings.Replace(headerLine, `"v":1,`, ``, 1), wantFatal: "x.ndjson:1: capture format v0 is not a valid version"},
		{name: "torn header", file: headerLine[:40], wantFatal: "x.ndjson:1: torn last line"},
		{name: "header only", file: headerLine, wantRecs: 1},
		{name: "header without newline", file: strings.TrimSuffix(headerLine, "\n"), wantRecs: 1},
		{name: "complete last line without newline", file: headerLine + strings.TrimSuffix(chunk, "\n"), wantRecs: 2},
		{name: "torn last line", file: headerLine + chunk + chunk[:30], wantRecs: 2,
			wantWarn: []string{"x.ndjson:3: torn last line"}},
		{name: "malformed middle line", file: headerLine + chunk + "{\"type\":\"chunk\",\"ex\":\n" + chunk, wantRecs: 3,
			wantLine: []string{"x.ndjson:3: malformed line"}},
		{name: "bad side", file: headerLine + strings.Replace(chunk, "upstream", "sideways", 1) + chunk, wantRecs: 2,
			wantLine: []string{`x.ndjson:2: decode chunk line: side "sideways"`}},
		{name: "ex zero", file: headerLine + strings.Replace(chunk, `"ex":1`, `"ex":0`, 1), wantRecs: 1,
			wantLine: []string{`x.ndjson:2: decode chunk line: ex 0`}},
		{name: "both data fields", file: headerLine + strings.Replace(chunk, `"data"`, `"data_b64":"aGk=","data"`, 1), wantRecs: 1,
			wantLine: []string{`both "data" and "data_b64"`}},
		{name: "bad base64", file: headerLine + `{"type":"chunk","ex":1,"side":"client","data_b64":"!!"}` + "\n", wantRecs: 1,
			wantLine: []string{`x.ndjson:2: decode chunk line`}},
		{name: "no type", file: headerLine + `{"ex":1}` + "\n", wantRecs: 1, wantLine: []string{`x.ndjson:2: malformed line: no "type" field`}},
		{name: "unknown type skipped", file: headerLine + `{"type":"hologram","ex":1}` + "\n" + chunk, wantRecs: 2,
			wantWarn: []string{`x.ndjson:2: unknown line type "hologram"`}},
		{name: "second header", file: headerLine + headerLine + chunk, wantRecs: 2, wantLine: []string{`x.ndjson:2: second "capture" header`}},
		{name: "blank lines and CRLF", file: headerLine + "\n" + strings.Replace(chunk, "\n", "\r\n", 1) + "   \n", wantRecs: 2},
		{name: "unknown fields ignored", file: headerLine + `{"type":"chunk","future":{"a":[1,2]},"ex":1,"side":"client","t":3,"off":0,"data":"x"}` + "\n", wantRecs: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			recs, lineErrs, fatal, d := decodeAll(t, tt.file, "x.ndjson")
			if tt.wantFatal == "" && fatal != nil {
				t.Fatalf("unexpected fatal error: %v", fatal)
			}
			if tt.wantFatal != "" {
				if fatal == nil || !strings.Contains(fatal.Error(), tt.wantFatal) {
					t.Fatalf("fatal error %v, want one containing %q", fatal, tt.wantFatal)
				}
				return
			}
			if len(recs) != tt.wantRecs {
				t.Errorf("%d records, want %d", len(recs), tt.wantRecs)
			}
			checkErrs(t, "line error", lineErrs, tt.wantLine)
			checkErrs(t, "warning", d.Warnings(), tt.wantWarn)
		})
	}
}

func checkErrs(t *testing.T, what string, got []error, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%ss %v, want %d", what, got, len(want))
		return
	}
	for i := range want {
		var lerr *LineError
		if !errors.As(got[i], &lerr) || lerr.File != "x.ndjson" || lerr.Line == 0 {
			t.Errorf("%s %v is not a *LineError with file and line", what, got[i])
		}
		if !strings.Contains(got[i].Error(), want[i]) {
			t.Errorf("%s %q, want it to contain %q", what, got[i], want[i])
		}
	}
}

func TestVersionErrorIsTyped(t *testing.T) {
	t.Parallel()
	_, err := Read(strings.NewReader(strings.Replace(headerLine, `"v":1`, `"v":7`, 1)), "captures/new.ndjson")
	var verr *VersionError
	if !errors.As(err, &verr) || verr.V != 7 {
		t.Fatalf("error %v, want a *VersionError with V 7", err)
	}
	if !strings.HasPrefix(err.Error(), "captures/new.ndjson:1: capture format v7 is newer") {
		t.Errorf("message %q does not name the file first", err)
	}
}

func TestLongLine(t *testing.T) {
	t.Parallel()
	// 1 MiB of data in one chunk: far beyond bufio.Scanner's 64 KiB default
	// and the decoder's own 64 KiB read buffer.
	data := bytes.Repeat([]byte("data: 0123456789abcdef\\\"\n"), 1<<20/25)
	file := AppendHeader(nil, testHeader())
	file = AppendChunk(file, Chunk{Ex: 1, Side: Upstream, Data: data})
	file = AppendChunk(file, Chunk{Ex: 1, Side: Upstream, Off: int64(len(data)), Data: []byte("x")})
	c, err := Read(bytes.NewReader(file), "long.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Exchanges[0].Upstream.Body(); !bytes.Equal(got, append(data, 'x')) {
		t.Errorf("body of %d bytes differs from the %d written", len(got), len(data)+1)
	}
}

// TestFastPathMatchesFallback checks that the hand-written chunk parser and
// encoding/json agree on chunk lines in shapes AppendChunk never writes.
func TestFastPathMatchesFallback(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"type":"chunk","ex":1,"side":"upstream","t":1,"off":0,"data":"a\u00e9\ud83d\ude42\/\"\\\b\f\n\r\t"}`,
		`{ "data" : "x" , "off":5,"t":-3, "side":"client","ex":2,"type":"chunk" }`,
		`{"type":"chunk","ex":1,"side":"client","data_b64":"/w=="}`,
		`{"type":"chunk","ex":1,"side":"client","data":"\u0000"}`,
		`{"type":"chunk","ex":1,"side":"client","data":"lone \ud800"}`,
		`{"type":"chunk","ex":1,"side":"client","data":"x","extra":"y","n":12}`,
		`{"type":"chunk","ex":1.5,"side":"client","data":"x"}`,
		`{"type":"chunk","ex":01,"side":"client","data":"x"}`,
		`{"type":"chunk","ex":1,"side":"client","data":"x","ex":3}`,
		`{"type":"chunk","ex":1,"side":"client","data":null}`,
		`{"type":"chunk","ex":1,"side":"client","data":"\x"}`,
	}
	for _, line := range lines {
		fast, fastOK := parseChunkFast([]byte(line))
		slow, slowErr := decodeKind(KindChunk, []byte(line))
		if !fastOK {
			continue // the decoder falls back; nothing to compare
		}
		if slowErr != nil {
			if checkChunk(fast) == nil {
				t.Errorf("%s: fast path accepts, encoding/json says %v", line, slowErr)
			}
			continue
		}
		s := slow.Chunk
		if fast.Ex != s.Ex || fast.Side != s.Side || fast.T != s.T || fast.Off != s.Off || !bytes.Equal(fast.Data, s.Data) {
			t.Errorf("%s:\nfast %+v %q\nslow %+v %q", line, *fast, fast.Data, *s, s.Data)
		}
	}
}

func TestReadGathersExchanges(t *testing.T) {
	t.Parallel()
	file, _ := encodeAll(t)
	file = AppendNote(file, Note{Ex: 0, Text: "whole capture"})
	file = AppendEnd(file, End{Ex: 1, Side: Client, Outcome: Complete}) // duplicate
	c, err := Read(bytes.NewReader(file), "all.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != 2 || c.Exchanges[0].Ex != 1 || c.Exchanges[1].Ex != 2 {
		t.Fatalf("exchanges %+v", c.Exchanges)
	}
	x := c.Exchanges[0]
	if x.Request == nil || x.Upstream.Response == nil || x.Upstream.End == nil || x.Client.End == nil {
		t.Fatalf("exchange 1 incomplete: %+v", x)
	}
	if got, want := len(x.Upstream.Chunks), 2; got != want {
		t.Errorf("%d upstream chunks, want %d", got, want)
	}
	if got, want := string(x.Client.Body()), "data: €"; got != want {
		t.Errorf("client body %q, want %q", got, want)
	}
	if x.Side(Client) != &x.Client || x.Side("other") != nil {
		t.Error("Side returns the wrong data")
	}
	if len(x.Notes) != 1 || len(c.Notes) != 1 {
		t.Errorf("notes %v / capture notes %v", x.Notes, c.Notes)
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0].Error(), "second client end for exchange 1") {
		t.Errorf("warnings %v", c.Warnings)
	}
}

func TestReadKeepsGoingPastBadLines(t *testing.T) {
	t.Parallel()
	file := headerLine + "garbage\n" + `{"type":"chunk","ex":1,"side":"client","t":1,"off":0,"data":"ok"}` + "\n" + `{"type":"chu`
	c, err := Read(strings.NewReader(file), "x.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 2 || !strings.Contains(c.Warnings[0].Error(), "x.ndjson:2:") || !strings.Contains(c.Warnings[1].Error(), "x.ndjson:4: torn") {
		t.Errorf("warnings %v", c.Warnings)
	}
	if len(c.Exchanges) != 1 || string(c.Exchanges[0].Client.Body()) != "ok" {
		t.Errorf("exchanges %+v", c.Exchanges)
	}
}

func TestReadFileMissing(t *testing.T) {
	t.Parallel()
	if _, err := ReadFile("testdata/does-not-exist.ndjson"); err == nil || !strings.Contains(err.Error(), "does-not-exist.ndjson") {
		t.Errorf("error %v, want one naming the file", err)
	}
}

// TestExampleCapture decodes the example capture shown in FORMAT.md
// (tape/testdata/example.ndjson, written by hand to match the spec, a client
// chunk in "sse" pieces and the last one a reference) and the same exchange
// as formats v1 and v2 wrote it, and checks that re-encoding every record
// reproduces each file byte for byte (the reference as the bytes it stands
// for, and an older version's event as the "sse" piece this version writes),
// that both sides' bodies are whole and that no hash is reported wrong.
func TestExampleCapture(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"example.ndjson", "example-v2.ndjson", "example-v1.ndjson"} {
		t.Run(name, func(t *testing.T) { checkExample(t, "testdata/"+name) })
	}
}

func checkExample(t *testing.T, path string) {
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := NewDecoder(bytes.NewReader(file), "example.ndjson")
	var again []byte
	for {
		rec, err := d.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch rec.Kind {
		case KindHeader:
			again = AppendHeader(again, *rec.Header)
		case KindRequest:
			again = AppendRequest(again, *rec.Request)
		case KindResponse:
			again = AppendResponse(again, *rec.Response)
		case KindChunk:
			again = AppendChunk(again, *rec.Chunk)
		case KindEnd:
			again = AppendEnd(again, *rec.End)
		case KindNote:
			again = AppendNote(again, *rec.Note)
		}
	}
	// The reference comes back as the bytes it stands for.
	wantFile := bytes.Replace(file, []byte(`"off":49,"ref":49,"len":14}`), []byte(`"off":49,"data":"data: [DONE]\n\n"}`), 1)
	// Versions 1 and 2 wrote the event as "data".
	wantFile = bytes.Replace(wantFile, []byte(`"data":"data: {\"choices\":[{\"delta\":{\"content\":\"Hé\"}}]}\n\n"}`),
		[]byte(`"sse":[{"choices":[{"delta":{"content":"Hé"}}]}]}`), 1)
	if !bytes.Equal(again, wantFile) {
		t.Errorf("re-encoded capture differs:\n%s\nwant:\n%s", again, wantFile)
	}
	if len(d.Warnings()) > 0 {
		t.Errorf("warnings: %v", d.Warnings())
	}
	c, err := Read(bytes.NewReader(file), "example.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	x := c.Exchanges[0]
	want := "data: {\"choices\":[{\"delta\":{\"content\":\"Hé\"}}]}\n\ndata: [DONE]\n\n"
	if got := string(x.Upstream.Body()); got != want {
		t.Errorf("upstream body %q, want %q", got, want)
	}
	if got := string(x.Client.Body()); got != want {
		t.Errorf("client body %q, want %q", got, want)
	}
	if !x.Client.End.Outcome.Success() || x.Upstream.End.Bytes != int64(len(want)) {
		t.Errorf("ends %+v %+v", x.Upstream.End, x.Client.End)
	}
}
