package convert

import (
	"os"
	"path/filepath"
	"testing"
)

// realworld is where the repository keeps its copy of real recorded
// streams (see fixtures/README.md for their provenance).
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
