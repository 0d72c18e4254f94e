package inspect

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
)

// chunksOf splits body into chunks of at most n bytes (n <= 0: one chunk),
// stamped 1 ms apart.
func chunksOf(side tape.Side, body []byte, n int) []tape.Chunk {
	if n <= 0 {
		n = len(body)
	}
	var cs []tape.Chunk
	for off := 0; off < len(body); off += n {
		end := min(off+n, len(body))
		cs = append(cs, tape.Chunk{Ex: 1, Side: side, T: int64(len(cs)+1) * 1e6, Off: int64(off), Data: body[off:end]})
	}
	return cs
}

// realworld is where the repository keeps the recorded streams of
// ../shared/realworld (see fixtures/README.md for their provenance).
const realworld = "../fixtures/realworld"

// readTestdata reads a recorded stream from the repository's copy of the
// real-world corpus.
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(realworld, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// assembleFile parses and assembles a raw SSE body.
func assembleFile(t testing.TB, name string, chunk int) (*protocol.Assembly, *protocol.Side) {
	t.Helper()
	se := protocol.ParseSide(chunksOf(tape.Upstream, readTestdata(t, name), chunk), nil)
	return protocol.Assemble(protocol.Detect("", se.Events), se), se
}

// withoutBorn returns tc without the events it was born at, for comparing
// with a literal.
func withoutBorn(tc protocol.ToolCall) protocol.ToolCall {
	tc.Born = protocol.Born{}
	return tc
}

// WriteText writes a report as text. The text report is package
// textreport's, which imports inspect, so the tests of this package
// cannot import it: those that read the text a report makes call
// WriteText, which textreport_test.go, an external test file of this
// package, sets to textreport.Write before any test runs.
var WriteText func(w io.Writer, r *Report, color bool) error
