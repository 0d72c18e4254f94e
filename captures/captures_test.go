package captures

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seam-dev/seam/tape"
)

// capture returns a capture file's bytes: a header started at started
// (none when zero) and one exchange per number in exs, each with a request
// and an ended upstream and client side.
func capture(started time.Time, exs ...int) []byte {
	b := tape.AppendHeader(nil, tape.Header{V: tape.Version, Seam: "test", ID: "x", Started: started, Engine: tape.Engine{Profile: "passthrough"}})
	for _, ex := range exs {
		b = tape.AppendRequest(b, tape.Request{Ex: ex, Method: "POST", URL: "/v1/chat/completions", Headers: tape.Headers{}})
		for _, s := range []tape.Side{tape.Upstream, tape.Client} {
			b = tape.AppendResponse(b, tape.Response{Ex: ex, Side: s, T: 1, Status: 200, Headers: tape.Headers{}})
			b = tape.AppendChunk(b, tape.Chunk{Ex: ex, Side: s, T: 2, Data: []byte("data: x\n\n")})
			b = tape.AppendEnd(b, tape.End{Ex: ex, Side: s, T: 3, Outcome: tape.Complete, Bytes: 9})
		}
	}
	return b
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWalk: a directory stands for its captures and its subdirectories',
// in the order they were recorded, those without a start time (imports)
// last; a file with a capture's name that is no capture is left out, and
// a named pipe is skipped with a note instead of being opened.
func TestWalk(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	write(t, filepath.Join(dir, "a.ndjson"), capture(t0.Add(time.Hour), 1))
	write(t, filepath.Join(dir, "sub", "b.ndjson"), capture(t0, 1))
	write(t, filepath.Join(dir, "c.ndjson"), capture(time.Time{}, 1))
	write(t, filepath.Join(dir, "raw.ndjson"), []byte(`{"model":"llama3","response":"hi","done":false}`+"\n"))
	write(t, filepath.Join(dir, "notes.txt"), []byte("not a capture\n"))
	var notes []string
	o := Options{Note: func(msg string) { notes = append(notes, msg) }}
	if runtime.GOOS != "windows" {
		if err := syscall.Mkfifo(filepath.Join(dir, "pipe.ndjson"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Expand(context.Background(), []string{dir, "-"}, o)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "sub", "b.ndjson"), filepath.Join(dir, "a.ndjson"), filepath.Join(dir, "c.ndjson"), "-"}
	if !slices.Equal(got, want) {
		t.Errorf("Expand: %q, want %q", got, want)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "pipe.ndjson") || !strings.Contains(notes[0], "named pipe") {
		t.Errorf("notes %q, want one naming the pipe", notes)
	}
	if ok, err := Exists(context.Background(), filepath.Join(dir, "none")); ok || err != nil {
		t.Errorf("Exists(missing) = %v, %v", ok, err)
	}
	empty := t.TempDir()
	if _, err := Expand(context.Background(), []string{empty}, o); err == nil || !strings.Contains(err.Error(), "no captures") {
		t.Errorf("Expand(empty directory): %v", err)
	}
}

// TestFind: exchange n is gathered with the lines a capture appends to it
// after it was complete (a late note), the problems skipped (a torn last
// line) are heard once the input is read, and a number the input lacks
// says how many it has.
func TestFind(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.ndjson")
	b := capture(time.Now(), 1, 2)
	b = tape.AppendNote(b, tape.Note{Ex: 1, T: 9, Text: "late"})
	b = append(b, `{"type":"chunk","ex":2,"si`...)
	write(t, path, b)
	var warned []error
	o := Options{Warn: func(err error) { warned = append(warned, err) }}
	src, err := Open(context.Background(), path, o)
	if err != nil {
		t.Fatal(err)
	}
	x, err := src.Find(1)
	src.Close()
	if err != nil || x.Ex != 1 || len(x.Notes) != 1 || x.Notes[0].Text != "late" || x.Client.End == nil {
		t.Fatalf("Find(1) = %+v, %v", x, err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0].Error(), ":17: torn last line") {
		t.Errorf("warnings %v, want the torn line 17's", warned)
	}
	src, err = Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	_, err = src.Find(7)
	var nx *NoExchangeError
	if !errors.As(err, &nx) || err.Error() != path+" has no exchange 7 (it has 2)" {
		t.Errorf("Find(7): %v", err)
	}
}

// TestOpenRawAndStdin: another tool's recording on stdin is told from a
// capture by its first line and converted, then handed over exchange by
// exchange like a capture; the bytes read are counted for a progress line.
func TestOpenRawAndStdin(t *testing.T) {
	body := "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n"
	var p countProgress
	src, err := Open(context.Background(), "-", Options{Stdin: strings.NewReader(body), Progress: &p})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	x, err := src.Next()
	if err != nil || x.Ex != 1 || len(x.Upstream.Chunks) == 0 {
		t.Fatalf("Next = %+v, %v", x, err)
	}
	if _, err := src.Next(); err != io.EOF {
		t.Errorf("second Next: %v, want io.EOF", err)
	}
	if p.n != int64(len(body)) {
		t.Errorf("progress counted %d bytes, want %d", p.n, len(body))
	}
	if IsCapture([]byte(body)) || !IsCapture(capture(time.Time{}, 1)) {
		t.Error("IsCapture mistakes a body for a capture or a capture for a body")
	}
}

type countProgress struct{ n int64 }

func (p *countProgress) File(int)     {}
func (p *countProgress) Read(n int64) { p.n += n }
