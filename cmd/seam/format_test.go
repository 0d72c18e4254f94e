package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/seam-dev/seam/tape"
)

// TestRewriteWritesCurrentVersion: "seam replay -o" of a format v1 capture
// writes a capture of the current version (its chunk lines are this
// version's: an event in "sse" pieces), not a v1 header over lines a v1
// reader would misread, and it reads back with the same bodies.
func TestRewriteWritesCurrentVersion(t *testing.T) {
	t.Parallel()
	in, err := os.ReadFile("../../tape/testdata/example-v1.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	// The example names a switch seam's engine does not have, and its
	// upstream split the event in two reads: make it one read.
	in = bytes.Replace(in, []byte(`,"switches":{"coalesce":"off"}`), nil, 1)
	in = bytes.Replace(in, []byte(`"data_b64":"ZGF0YTogeyJjaG9pY2VzIjpbeyJkZWx0YSI6eyJjb250ZW50IjoiSMM="}`),
		[]byte(`"data":"data: {\"choices\":[{\"delta\":{\"content\":\"Hé\"}}]}\n\n"}`), 1)
	in = bytes.Replace(in, []byte(`{"type":"chunk","ex":1,"side":"upstream","t":311480000,"off":41,"data_b64":"qSJ9fV19Cgo="}`+"\n"), nil, 1)
	dir := t.TempDir()
	src, out := filepath.Join(dir, "v1.ndjson"), filepath.Join(dir, "out.ndjson")
	if err := os.WriteFile(src, in, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := seamOutput("replay", "-o", out, src); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte(`{"type":"capture","v":3,`)) || !bytes.Contains(b, []byte(`"sse":[{"choices":[{"delta":{"content":"Hé"}}]}]`)) {
		t.Fatalf("replay -o wrote:\n%s", b)
	}
	c, err := tape.Read(bytes.NewReader(b), out)
	if err != nil || len(c.Warnings) > 0 || len(c.Exchanges) != 1 {
		t.Fatalf("read back: %v %v", err, c)
	}
	want := "data: {\"choices\":[{\"delta\":{\"content\":\"Hé\"}}]}\n\ndata: [DONE]\n\n"
	if got := string(c.Exchanges[0].Client.Body()); got != want {
		t.Errorf("client body %q, want %q", got, want)
	}
}
