package sse

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parseChunks feeds each chunk to a fresh Parser, closes it and returns the
// events and the comments seen.
func parseChunks(chunks ...[]byte) []Event {
	var p Parser
	var out []Event
	emit := func(e Event) { out = append(out, e) }
	for _, c := range chunks {
		p.Feed(c, emit)
	}
	p.Close(emit)
	return out
}

func parseString(s string) []Event { return parseChunks([]byte(s)) }

// splitEvery cuts b into chunks of n bytes.
func splitEvery(b []byte, n int) [][]byte {
	var out [][]byte
	for len(b) > n {
		out = append(out, b[:n])
		b = b[n:]
	}
	return append(out, b)
}

// splitRandom cuts b at random points (empty chunks included).
func splitRandom(b []byte, r *rand.Rand) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		n := r.IntN(min(len(b), 64) + 1)
		out = append(out, b[:n])
		b = b[n:]
	}
	return out
}

type corpusFile struct {
	name string
	data []byte
}

// realworld is where the repository keeps the recorded streams of
// ../shared/realworld (see fixtures/README.md for their provenance).
const realworld = "../fixtures/realworld"

// readCorpus reads the files pattern matches in testdata and, for a
// "testdata/" pattern, the same pattern in the repository's recorded
// streams.
func readCorpus(t testing.TB, pattern string) []corpusFile {
	t.Helper()
	names, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatalf("glob %s: %v", pattern, err)
	}
	if rest, ok := strings.CutPrefix(pattern, "testdata/"); ok {
		more, _ := filepath.Glob(filepath.Join(realworld, rest))
		names = append(names, more...)
	}
	var out []corpusFile
	for _, n := range names {
		fi, err := os.Stat(n)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatalf("read %s: %v", n, err)
		}
		out = append(out, corpusFile{name: n, data: b})
	}
	return out
}

// sharedRealworld is the shared corpus outside the repo (../shared from the
// repo root). Tests using it skip when it is absent; testdata holds copies.
const sharedRealworld = "../../shared/realworld"

// splitCorpus is the inline edge cases of splitInputs plus every recorded
// and hand-made stream: the inputs of the split-invariance properties.
func splitCorpus(t testing.TB) []corpusFile {
	var inputs []corpusFile
	for i, s := range splitInputs {
		inputs = append(inputs, corpusFile{name: "inline-" + string(rune('a'+i)), data: []byte(s)})
	}
	return append(inputs, readCorpus(t, "testdata/*.sse")...)
}
