package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dev/seam/tape"
)

// TestCheckCapture: the check every seam record run of the harness ends
// with (seam-bench, BenchmarkHeldStreams) counts the exchanges whole on
// both sides, plain or compressed, and those the writer could not record
// whole, and fails on an exchange that did not complete on both sides with
// the same bytes, and on a byte the capture lost or altered.
func TestCheckCapture(t *testing.T) {
	t.Parallel()
	const body = "data: {\"n\":1}\n\ndata: [DONE]\n\n"
	// whole writes exchange ex as the recorder does in passthrough, each
	// end line with its hash.
	whole := func(w *tape.Writer, ex int) {
		x := w.Exchange(ex)
		x.Request(tape.Request{Method: "POST", URL: "/v1/chat/completions"})
		x.Response(tape.Response{Side: tape.Upstream, Status: 200})
		x.Response(tape.Response{Side: tape.Client, Status: 200})
		x.Chunk(tape.Upstream, 1, []byte(body))
		x.ClientChunk(2, []byte(body), 0)
		x.End(tape.Upstream, 3, tape.Complete, "")
		x.End(tape.Client, 4, tape.Complete, "")
	}
	// ends writes exchange ex with no chunks: each side's bytes went over
	// the wire unrecorded, and its end line says how it ended.
	ends := func(w *tape.Writer, ex int, up, cl tape.End) {
		x := w.Exchange(ex)
		x.Request(tape.Request{Method: "POST", URL: "/"})
		for _, e := range []struct {
			side tape.Side
			end  tape.End
		}{{tape.Upstream, up}, {tape.Client, cl}} {
			if e.end.Outcome == "" {
				continue // no end line
			}
			x.Withhold(e.side, e.end.Bytes)
			x.End(e.side, 1, e.end.Outcome, "")
		}
	}
	complete := tape.End{Outcome: tape.Complete, Bytes: 10}
	tests := []struct {
		name      string
		zst       bool
		write     func(w *tape.Writer)
		edit      func(string) string
		exchanges int
		lossy     int
		err       string
	}{
		{name: "whole", write: func(w *tape.Writer) { whole(w, 1); whole(w, 2) }, exchanges: 2},
		{name: "compressed", zst: true, write: func(w *tape.Writer) { whole(w, 1); whole(w, 2) }, exchanges: 2},
		{name: "unrecorded data", write: func(w *tape.Writer) { whole(w, 1); ends(w, 2, complete, complete) }, exchanges: 2, lossy: 1},
		{name: "client aborted", write: func(w *tape.Writer) {
			ends(w, 1, complete, tape.End{Outcome: tape.ClientAborted, Bytes: 10})
		}, err: "exchange 1 did not complete"},
		{name: "bytes differ", write: func(w *tape.Writer) {
			ends(w, 1, complete, tape.End{Outcome: tape.Complete, Bytes: 9})
		}, err: "exchange 1 did not complete"},
		{name: "no upstream end", write: func(w *tape.Writer) { ends(w, 1, tape.End{}, complete) }, err: "exchange 1 did not complete"},
		{name: "altered byte", write: func(w *tape.Writer) { whole(w, 1) },
			edit: func(s string) string { return strings.Replace(s, `"sse":[{"n":1}`, `"sse":[{"n":2}`, 1) }, err: "lost or altered"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			w := tape.NewWriter(&buf, tape.WriterOptions{Compress: tc.zst})
			w.Header(tape.Header{V: tape.Version, Seam: "test", ID: "check", Upstream: "http://127.0.0.1:1", Engine: tape.Engine{Profile: "passthrough"}})
			tc.write(w)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			file := buf.String()
			if tc.edit != nil {
				if file = tc.edit(file); file == buf.String() {
					t.Fatal("the edit changed nothing")
				}
			}
			path := filepath.Join(t.TempDir(), "c.ndjson")
			if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := CheckCapture(path)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("CheckCapture: %v, want an error saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Exchanges != tc.exchanges || c.Incomplete != tc.lossy || c.Bytes != int64(len(file)) {
				t.Errorf("checked %+v, want %d exchanges, %d incomplete, %d bytes", c, tc.exchanges, tc.lossy, len(file))
			}
		})
	}
}
