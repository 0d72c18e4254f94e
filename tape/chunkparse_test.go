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

// TestFastPathDuplicateKeys: a line that repeats a key reads as
// encoding/json reads it (the last value; for "data_b64", every value
// decoded, a bad one failing the line), or is left to it.
func TestFastPathDuplicateKeys(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		`{"type":"chunk","data_b64":"0","ex":1,"side":"client","data_b64":""}`,
		`{"type":"chunk","data_b64":"","ex":1,"side":"client","data_b64":"eA=="}`,
		`{"type":"chunk","data":"a","ex":1,"side":"client","data":"b"}`,
		`{"type":"chunk","ex":2,"side":"client","data":"a","ex":1}`,
		`{"type":"chunk","ex":1,"side":"upstream","side":"client","data":"a"}`,
	} {
		fast, ok := parseChunkFast([]byte(line))
		if !ok {
			continue
		}
		slow, err := decodeKind(KindChunk, []byte(line))
		if err != nil {
			t.Errorf("%s: the fast path reads %q, encoding/json fails: %v", line, fast.Data, err)
			continue
		}
		if s := slow.Chunk; !bytes.Equal(fast.Data, s.Data) || fast.Ex != s.Ex || fast.Side != s.Side {
			t.Errorf("%s: fast path %+v, encoding/json %+v", line, *fast, *s)
		}
	}
}
