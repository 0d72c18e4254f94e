package protocol

import (
	"testing"

	"github.com/seam-dev/seam/internal/streamtest"
	"github.com/seam-dev/seam/tape"
)

// chunksOf is streamtest.Chunks.
var chunksOf = streamtest.Chunks

// readTestdata is streamtest.ReadRealworld.
var readTestdata = streamtest.ReadRealworld

// assembleFile parses and assembles a raw SSE body cut into chunks of the
// given size.
func assembleFile(t testing.TB, name string, chunk int) (*Assembly, *Side) {
	t.Helper()
	se := ParseSide(chunksOf(tape.Upstream, readTestdata(t, name), chunk), nil)
	return Assemble(Detect("", se.Events), se), se
}
