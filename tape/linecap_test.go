package tape

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// TestLineCap: a line longer than the cap is skipped with an error naming
// the file, the line and the cap, and the lines after it are read; a
// header line longer than the cap is fatal.
func TestLineCap(t *testing.T) {
	t.Parallel()
	chunk := `{"type":"chunk","ex":1,"side":"upstream","t":1,"off":0,"data":"hi"}` + "\n"
	long := `{"type":"note","ex":1,"text":"` + strings.Repeat("a", 200) + `"}` + "\n"
	for _, tc := range []struct{ name, file, err string }{
		{"middle", headerLine + long + chunk, "x.ndjson:2: the line is too long: 232 bytes (seam reads capture lines of up to 200 bytes); skipped"},
		{"last, no newline", headerLine + chunk + strings.TrimSuffix(long, "\n"), "x.ndjson:3: the line is too long: 232 bytes, and the file ends before its newline"},
	} {
		d := NewDecoder(strings.NewReader(tc.file), "x.ndjson")
		d.r = bufio.NewReaderSize(strings.NewReader(tc.file), 16) // lines span many reads
		d.maxLine = 200
		var recs []Record
		var errs []error
		for range 10 {
			rec, err := d.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				errs = append(errs, err)
				continue
			}
			recs = append(recs, rec)
		}
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.err) || !errors.As(errs[0], new(*LineError)) {
			t.Errorf("%s: errors %v, want %q", tc.name, errs, tc.err)
		}
		if len(recs) != 2 || recs[1].Kind != KindChunk {
			t.Errorf("%s: %d records, want the header and the chunk", tc.name, len(recs))
		}
	}
	d := NewDecoder(strings.NewReader(strings.Repeat(" ", 300)+headerLine), "h.ndjson")
	d.maxLine = 100
	if _, err := d.Next(); err == nil || !strings.Contains(err.Error(), "h.ndjson:1: the line is too long") {
		t.Fatalf("header: %v", err)
	}
	if _, err := d.Next(); err == nil {
		t.Fatal("a header line past the cap is not fatal")
	}
}

// TestLineCapZstdMemory: a few KB of zstd whose third line is 256 MiB (135 KB
// make one of 4 GiB) reads in bounded memory: the line is skipped with an error at the cap, the line
// after it is read.
func TestLineCapZstdMemory(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("measures memory: run without -race and -short; compresses 256 MiB")
	}
	// Not parallel: the heap measured is this test's alone.
	var b bytes.Buffer
	w, _ := zstd.NewWriter(&b, zstd.WithEncoderLevel(zstd.SpeedFastest))
	w.Write([]byte(headerLine))
	w.Write([]byte(`{"type":"request","ex":1,"t":1,"method":"POST","url":"/v1/chat/completions","headers":{}}` + "\n"))
	w.Write([]byte(`{"type":"note","ex":1,"t":2,"text":"`))
	fill := bytes.Repeat([]byte("a"), 1<<20)
	for range 256 {
		w.Write(fill)
	}
	w.Write([]byte("\"}\n" + `{"type":"note","ex":1,"t":3,"text":"after"}` + "\n"))
	w.Close()
	if b.Len() > 1<<20 {
		t.Fatalf("the capture is %d bytes", b.Len())
	}
	runtime.GC()
	peak := heapPeak(t)
	d := NewDecoder(&b, "bomb.ndjson.zst")
	var recs []Record
	var errs []error
	for range 10 {
		rec, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var lerr *LineError
			if !errors.As(err, &lerr) {
				t.Fatal(err)
			}
			errs = append(errs, err)
			continue
		}
		recs = append(recs, rec)
	}
	p := peak()
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "bomb.ndjson.zst:3: the line is too long: 268435494 bytes (seam reads capture lines of up to 32 MiB)") {
		t.Fatalf("errors %v", errs)
	}
	if len(recs) != 3 || recs[2].Note == nil || recs[2].Note.Text != "after" {
		t.Fatalf("%d records", len(recs))
	}
	if p > 2*MaxLine+16<<20 {
		t.Fatalf("peak heap %d MiB", p>>20)
	}
}

// heapPeak samples the heap in use until the function it returns is
// called, which returns the highest sample.
func heapPeak(t *testing.T) func() uint64 {
	t.Helper()
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		var m runtime.MemStats
		var high uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&m)
			high = max(high, m.HeapAlloc)
			select {
			case <-stop:
				done <- high
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(stop)
		return <-done
	}
}

// TestLargeFieldStaysShort: a large body that JSON escapes would make
// longer than base64 is written in base64, and reads back the same.
func TestLargeFieldStaysShort(t *testing.T) {
	t.Parallel()
	body := bytes.Repeat([]byte{0, 1, 2, '"'}, 1<<18) // 1 MiB, valid UTF-8
	line := AppendRequest(nil, Request{Ex: 1, Method: "POST", URL: "/", Body: body})
	if !bytes.Contains(line, []byte(`"body_b64":"`)) || len(line) > 4*len(body)/3+256 {
		t.Fatalf("a %d-byte body of control bytes makes a %d-byte line", len(body), len(line))
	}
	c, err := Read(bytes.NewReader(append([]byte(headerLine), line...)), "x.ndjson")
	if err != nil || len(c.Exchanges) != 1 || !bytes.Equal(c.Exchanges[0].Request.Body, body) {
		t.Fatalf("read back: %v", err)
	}
	small := AppendRequest(nil, Request{Ex: 1, Method: "POST", URL: "/", Body: []byte("a\x00b")})
	if !bytes.Contains(small, []byte(`"body":"a\u0000b"`)) {
		t.Fatalf("a small body: %s", small)
	}
}

// TestOffsetOverflow: offsets and lengths near the largest int64, whose
// end would wrap negative, are refused on the line that holds them, in
// the fast chunk parser and the slow one alike.
func TestOffsetOverflow(t *testing.T) {
	t.Parallel()
	req := `{"type":"request","ex":1,"t":1,"method":"POST","url":"/","headers":{}}` + "\n"
	up := `{"type":"chunk","ex":1,"side":"upstream","t":2,"off":0,"data":"hello"}` + "\n"
	for _, tc := range []struct{ line, err string }{
		{`{"type":"chunk","ex":1,"side":"upstream","t":2,"off":9223372036854775805,"data":"hello"}`, "would end past the largest offset"},
		{`{"type":"chunk","ex":1,"side":"upstream","t":2,"off":9223372036854775805,"data_b64":"aGVsbG8="}`, "would end past the largest offset"},
		{`{"type":"chunk","ex":1,"side":"client","t":3,"off":0,"ref":9223372036854775807,"len":9223372036854775807}`, "would end past the largest offset"},
		{`{"type":"chunk","ex":1,"side":"client","t":3,"off":9223372036854775807,"ref":0,"len":5}`, "would end past the largest offset"},
		{`{"type":"chunk","ex":1,"side":"upstream","t":2,"off":5,"data":"hello","client":[3,9223372036854775806]}`, "would end past the largest offset"},
		{`{"type":"chunk","ex":1,"side":"upstream","off":5,"t":2,"data":"hello","client":[3,9223372036854775806],"x":null}`, "would end past the largest offset"},
	} {
		_, lineErrs, fatal, _ := decodeAll(t, headerLine+req+up+tc.line+"\n", "x.ndjson")
		if fatal != nil || len(lineErrs) != 1 || !strings.Contains(lineErrs[0].Error(), "x.ndjson:4:") || !strings.Contains(lineErrs[0].Error(), tc.err) {
			t.Errorf("%s: line errors %v, fatal %v", tc.line, lineErrs, fatal)
		}
	}
}
