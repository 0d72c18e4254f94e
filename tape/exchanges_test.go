package tape

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// capLines builds a capture from a header and lines written with the
// encoder, so tests state their lines compactly.
type capLines struct{ b []byte }

func newCapLines(profile string) *capLines {
	h := testHeader()
	h.Engine = Engine{Profile: profile}
	return &capLines{b: AppendHeader(nil, h)}
}

func (c *capLines) req(ex int, t int64) *capLines {
	c.b = AppendRequest(c.b, Request{Ex: ex, T: t, Method: "POST", URL: "/v1/chat/completions", Headers: Headers{}})
	return c
}

func (c *capLines) upReq(ex int, t int64) *capLines {
	c.b = AppendRequest(c.b, Request{Ex: ex, Side: Upstream, T: t, Method: "POST", URL: "/v1/chat/completions", Headers: Headers{}})
	return c
}

func (c *capLines) resp(ex int, s Side, t int64) *capLines {
	c.b = AppendResponse(c.b, Response{Ex: ex, Side: s, T: t, Status: 200, Headers: Headers{}})
	return c
}

func (c *capLines) chunk(ex int, s Side, t, off int64, data string) *capLines {
	c.b = AppendChunk(c.b, Chunk{Ex: ex, Side: s, T: t, Off: off, Data: []byte(data)})
	return c
}

func (c *capLines) end(ex int, s Side, t, n int64) *capLines {
	c.b = AppendEnd(c.b, End{Ex: ex, Side: s, T: t, Outcome: Complete, Bytes: n})
	return c
}

func (c *capLines) note(ex int, text string) *capLines {
	c.b = AppendNote(c.b, Note{Ex: ex, T: 1, Text: text})
	return c
}

// whole appends a complete two-sided exchange with one chunk per side.
func (c *capLines) whole(ex int, t int64) *capLines {
	return c.req(ex, t).resp(ex, Upstream, t+1).resp(ex, Client, t+2).
		chunk(ex, Upstream, t+3, 0, "data: x\n\n").chunk(ex, Client, t+4, 0, "data: x\n\n").
		end(ex, Upstream, t+5, 9).end(ex, Client, t+6, 9)
}

// readAll reads every exchange with an ExchangeReader and reports the most
// exchanges it held open at once.
func readAll(t testing.TB, b []byte) (xs []*Exchange, maxOpen int, r *ExchangeReader) {
	t.Helper()
	r = NewExchangeReader(bytes.NewReader(b), "x.ndjson")
	for {
		x, err := r.Next()
		if errors.Is(err, io.EOF) {
			return xs, maxOpen, r
		}
		if err != nil {
			t.Fatal(err)
		}
		xs = append(xs, x)
		maxOpen = max(maxOpen, len(r.g.byEx)+len(r.ready)+1)
	}
}

// TestExchangeReaderMatchesRead: on every fixture, the streamed exchanges
// are the ones Read gathers, field for field.
func TestExchangeReaderMatchesRead(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../fixtures/*.ndjson")
	files = append(files, "testdata/example.ndjson")
	if len(files) < 5 {
		t.Fatalf("found %d fixtures", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := Read(bytes.NewReader(b), f)
		if err != nil {
			t.Fatal(err)
		}
		streamed, _, r := readAll(t, b)
		slices.SortFunc(streamed, func(a, b *Exchange) int { return a.Ex - b.Ex })
		if !reflect.DeepEqual(streamed, whole.Exchanges) {
			t.Errorf("%s: streamed exchanges differ from Read's", f)
		}
		if !reflect.DeepEqual(r.Notes(), whole.Notes) || len(r.Warnings()) != len(whole.Warnings) {
			t.Errorf("%s: notes %v warnings %v", f, r.Notes(), r.Warnings())
		}
		for _, x := range whole.Exchanges {
			if len(x.Anomalies) > 0 {
				t.Errorf("%s: exchange %d: anomalies in a fixture: %+v", f, x.Ex, x.Anomalies)
			}
		}
	}
}

// TestExchangeReaderBounded: exchanges are handed over as they complete,
// so a long capture is read holding only the few in flight: a recording
// with 3 concurrent streams interleaved line by line, and a sequential
// import whose exchanges have no client side (with their notes).
func TestExchangeReaderBounded(t *testing.T) {
	t.Parallel()
	c := newCapLines("passthrough")
	const n = 300
	for ex := 1; ex <= n; ex += 3 {
		for k := range 3 {
			c.req(ex+k, int64(ex*100))
		}
		for k := range 3 {
			c.resp(ex+k, Upstream, int64(ex*100+1)).resp(ex+k, Client, int64(ex*100+2))
		}
		for i := range 4 {
			for k := range 3 {
				c.chunk(ex+k, Upstream, int64(ex*100+10+i), int64(i*2), "ab").chunk(ex+k, Client, int64(ex*100+10+i), int64(i*2), "ab")
			}
		}
		for k := range 3 {
			c.end(ex+k, Upstream, int64(ex*100+50), 8).end(ex+k, Client, int64(ex*100+51), 8)
		}
	}
	xs, maxOpen, r := readAll(t, c.b)
	if len(xs) != n || maxOpen > 4 {
		t.Errorf("%d exchanges, at most %d open at once; want %d, at most 4", len(xs), maxOpen, n)
	}
	for i, x := range xs {
		if x.Ex != i+1 || len(x.Client.Chunks) != 4 || x.Client.End == nil || len(x.Anomalies) != 0 {
			t.Fatalf("exchange %d: %+v", i+1, x)
		}
	}
	if w := r.Warnings(); len(w) != 0 {
		t.Errorf("warnings: %v", w)
	}

	imp := newCapLines("passthrough")
	for ex := 1; ex <= n; ex++ {
		imp.req(ex, 0).resp(ex, Upstream, 0).chunk(ex, Upstream, 0, 0, "data: 1\n\n").end(ex, Upstream, 0, 9).note(ex, fmt.Sprint("imported ", ex))
	}
	imp.note(0, "imported from x.yaml")
	xs, maxOpen, r = readAll(t, imp.b)
	if len(xs) != n || maxOpen > 2 {
		t.Errorf("import: %d exchanges, at most %d open at once; want %d, at most 2", len(xs), maxOpen, n)
	}
	for i, x := range xs {
		if x.Ex != i+1 || len(x.Notes) != 1 || x.Notes[0].Text != fmt.Sprint("imported ", i+1) || x.Continued {
			t.Fatalf("import exchange %d: %+v", i+1, x)
		}
	}
	if len(r.Notes()) != 1 {
		t.Errorf("capture notes %v", r.Notes())
	}
}

// TestExchangeReaderLateAndSandwich: a line arriving after its exchange was
// complete is read as a continuation with a warning (never dropped); a
// sandwich exchange waits for its upstream leg; --ex style selection drops
// the other exchanges' lines.
func TestExchangeReaderLateAndSandwich(t *testing.T) {
	t.Parallel()
	c := newCapLines("passthrough").whole(1, 10).whole(2, 20).note(1, "late")
	xs, _, r := readAll(t, c.b)
	if len(xs) != 3 || xs[2].Ex != 1 || !xs[2].Continued || len(xs[2].Notes) != 1 {
		t.Fatalf("exchanges %+v", xs)
	}
	if w := r.Warnings(); len(w) != 1 || !strings.Contains(w[0].Error(), "x.ndjson:16: a note line for exchange 1 after the exchange was complete (its last line is 8)") {
		t.Errorf("warnings %v", w)
	}

	// The front leg's client end comes first; the back leg follows.
	s := newCapLines("external").req(1, 1).resp(1, Client, 5).chunk(1, Client, 6, 0, "x").end(1, Client, 7, 1).
		upReq(2, 20).whole(2, 20).
		upReq(1, 2).resp(1, Upstream, 3).chunk(1, Upstream, 4, 0, "x").end(1, Upstream, 5, 1)
	xs, _, r = readAll(t, s.b)
	if len(xs) != 2 || xs[0].Ex != 2 || xs[1].Ex != 1 || xs[1].UpstreamRequest == nil || xs[1].Upstream.End == nil || len(r.Warnings()) != 0 {
		for _, x := range xs {
			t.Logf("exchange %d: %+v", x.Ex, *x)
		}
		t.Fatalf("sandwich: %v", r.Warnings())
	}

	one := NewExchangeReader(bytes.NewReader(newCapLines("passthrough").whole(1, 1).whole(2, 2).whole(3, 3).b), "x")
	one.Only(func(ex int) bool { return ex == 2 })
	x, err := one.Next()
	if err != nil || x.Ex != 2 {
		t.Fatalf("Only(2): %+v, %v", x, err)
	}
	if _, err := one.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("after exchange 2: %v", err)
	}
}

// TestAnomalies: lines that contradict each other are reported with the
// file's line and the chunk, by Read and by the ExchangeReader alike: an
// offset that jumps, a time that goes back or is negative, an end whose
// byte count is not the chunks' sum, and exchanges cut short.
func TestAnomalies(t *testing.T) {
	t.Parallel()
	c := newCapLines("passthrough").
		req(1, 10).resp(1, Upstream, 11).
		chunk(1, Upstream, 12, 0, "abcd").
		chunk(1, Upstream, 13, 100, "efgh"). // line 5: 96 bytes missing
		chunk(1, Upstream, 9, 104, "ijkl").  // line 6: time goes back
		end(1, Upstream, 14, 999).           // line 7: bytes claims 999, holds 12
		resp(1, Client, -5).                 // line 8: negative time
		chunk(1, Client, 15, 0, "x").
		chunk(1, Client, 16, 0, "y"). // line 10: overlaps
		end(1, Client, 17, 2).
		req(2, 20).resp(2, Upstream, 21).chunk(2, Upstream, 22, 0, "part") // cut short
	want := map[string]Anomaly{
		AnomalyOffsetGap + "/upstream":     {ID: AnomalyOffsetGap, Side: Upstream, Line: 5, Chunk: 1, Off: 100, T: 13, Count: 1},
		AnomalyTimeBackwards + "/upstream": {ID: AnomalyTimeBackwards, Side: Upstream, Line: 6, Chunk: 2, Off: 104, T: 9, Count: 1},
		AnomalyBytesMismatch + "/upstream": {ID: AnomalyBytesMismatch, Side: Upstream, Line: 7, Chunk: -1, Count: 1},
		AnomalyTimeBackwards + "/client":   {ID: AnomalyTimeBackwards, Side: Client, Line: 8, Chunk: -1, Count: 1},
		AnomalyOffsetGap + "/client":       {ID: AnomalyOffsetGap, Side: Client, Line: 10, Chunk: 1, Off: 0, T: 16, Count: 1},
	}
	messages := []string{
		"chunk 1 of the upstream side claims offset 100, but the chunks before it end at byte 4: 96 bytes missing",
		"chunk 2 of the upstream side (t=9) is earlier than the line before it on that side (t=13, line 5)",
		"the upstream end line claims 999 bytes, but the side's chunks before it hold 12",
		"the client response has a negative time (t=-5)",
		"chunk 1 of the client side claims offset 0, but the chunks before it end at byte 1: 1 bytes repeated or overlapping",
	}
	check := func(how string, xs []*Exchange) {
		t.Helper()
		slices.SortFunc(xs, func(a, b *Exchange) int { return a.Ex - b.Ex })
		if len(xs) != 2 {
			t.Fatalf("%s: %d exchanges", how, len(xs))
		}
		got := map[string]Anomaly{}
		var msgs []string
		for _, a := range xs[0].Anomalies {
			msgs = append(msgs, a.Message)
			a.Message = ""
			got[a.ID+"/"+string(a.Side)] = a
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: anomalies\n got %+v\nwant %+v", how, got, want)
		}
		for _, m := range messages {
			if !slices.Contains(msgs, m) {
				t.Errorf("%s: no anomaly says %q; got %q", how, m, msgs)
			}
		}
		if a := xs[1].Anomalies; len(a) != 1 || a[0].ID != AnomalyInterrupted || a[0].Side != Upstream || a[0].Line != 14 ||
			!strings.Contains(a[0].Message, "no end line: the recording was cut short") {
			t.Errorf("%s: exchange 2 anomalies %+v", how, a)
		}
	}
	whole, err := Read(bytes.NewReader(c.b), "x")
	if err != nil {
		t.Fatal(err)
	}
	check("Read", whole.Exchanges)
	xs, _, _ := readAll(t, c.b)
	check("ExchangeReader", xs)

	// A side that starts before its request was received.
	early, err := Read(bytes.NewReader(newCapLines("passthrough").whole(1, 10).resp(2, Upstream, 5).req(2, 10).end(2, Upstream, 12, 0).b), "x")
	if err != nil {
		t.Fatal(err)
	}
	if a := early.Exchanges[1].Anomalies; len(a) != 1 || a[0].ID != AnomalyTimeBackwards || a[0].Message != "the upstream side starts (t=5) before the request was received (t=10)" {
		t.Errorf("side before request: %+v", a)
	}

	// A request and nothing else is an interrupted exchange.
	only, err := Read(bytes.NewReader(newCapLines("passthrough").req(1, 1).b), "x")
	if err != nil {
		t.Fatal(err)
	}
	if a := only.Exchanges[0].Anomalies; len(a) != 1 || a[0].ID != AnomalyInterrupted || a[0].Side != "" {
		t.Errorf("request only: %+v", a)
	}
}
