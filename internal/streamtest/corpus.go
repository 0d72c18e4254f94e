package streamtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/seam-dev/seam/tape"
)

// Realworld is where the repository keeps its copy of real recorded
// streams (fixtures/README.md gives their provenance), from a package
// directory at the repository's top level, where tests run.
const Realworld = "../fixtures/realworld"

// ReadRealworld reads a recorded stream from Realworld, failing t when it
// cannot.
func ReadRealworld(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(Realworld, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Chunks splits body into the chunks of exchange 1's side, at most n bytes
// each (n <= 0: one chunk), stamped 1 ms apart, as a recorder that read
// it in reads of n bytes would have.
func Chunks(side tape.Side, body []byte, n int) []tape.Chunk {
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
