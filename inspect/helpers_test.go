package inspect

import (
	"io"
	"testing"

	"github.com/seam-dev/seam/internal/streamtest"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
)

// chunksOf is streamtest.Chunks.
var chunksOf = streamtest.Chunks

// readTestdata is streamtest.ReadRealworld.
var readTestdata = streamtest.ReadRealworld

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
