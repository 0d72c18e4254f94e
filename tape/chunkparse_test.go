package tape

import (
	"bytes"
	"strings"
	"testing"
)

// TestFastPathInvalidUTF8: a string holding bytes that are not UTF-8, at
// any place in its eight-byte words, is left to encoding/json, which
// replaces them; the fast path never reads it differently.
func TestFastPathInvalidUTF8(t *testing.T) {
	t.Parallel()
	for n := range 17 {
		for _, bad := range []string{"\xf7", "\xff", "\xc3", "\xed\xa0\x80"} {
			text := strings.Repeat("0", n) + bad
			for _, line := range []string{
				`{"type":"chunk","ex":1,"side":"client","data":"` + text + `"}`,
				`{"type":"chunk","ex":1,"side":"` + text + `","data":"x"}`,
				`{"type":"chunk","ex":1,"side":"client","sse":["` + text + `"]}`,
			} {
				fast, ok := parseChunkFast([]byte(line))
				if !ok {
					continue
				}
				slow, err := decodeKind(KindChunk, []byte(line))
				if err != nil || !bytes.Equal(fast.Data, slow.Chunk.Data) || fast.Side != slow.Chunk.Side {
					t.Errorf("%q: fast path reads %q (side %q), encoding/json %+v, %v", line, fast.Data, fast.Side, slow.Chunk, err)
				}
			}
		}
	}
}
