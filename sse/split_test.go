package sse

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// splitInputs are hand-made streams whose features depend on Feed
// boundaries: CRLF pairs, bare CRs, the BOM, runes and unterminated tails.
var splitInputs = []string{
	"\xEF\xBB\xBF: c\r\nevent: a\r\ndata: 1\r\n\r\ndata: 2\r\rdata: 3\n\ndata: \xC2\xB0\r\n\r\nid: 4\ndata: tail",
	"\xEF\xBBdata: not a bom\n\ndata: x\r\r\r\n\n\r",
	"data: a\r\n\r\n\r\n\r\ndata: b\r\r\r\rdata: c",
	"\xEF\xBB\xBF",
	"\r",
}

// TestSplitInvariance checks the property that the events, offsets and
// quirks included, do not depend on how the stream is split into Feeds.
func TestSplitInvariance(t *testing.T) {
	t.Parallel()
	for _, in := range splitCorpus(t) {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			want := parseChunks(in.data)
			if got := parseChunks(splitEvery(in.data, 1)...); !reflect.DeepEqual(got, want) {
				t.Fatalf("byte by byte differs:\n got %+v\nwant %+v", got, want)
			}
			r := rand.New(rand.NewPCG(uint64(len(in.data)), 7))
			for i := range 20 {
				chunks := splitRandom(in.data, r)
				if got := parseChunks(chunks...); !reflect.DeepEqual(got, want) {
					t.Fatalf("random split %d (%d chunks) differs:\n got %+v\nwant %+v", i, len(chunks), got, want)
				}
			}
			checkSpans(t, in.data, want)
		})
	}
}

// checkSpans checks the offset invariants of the events parsed from stream.
func checkSpans(t *testing.T, stream []byte, es []Event) {
	t.Helper()
	var prev int64
	for i, e := range es {
		if e.Start < prev || e.End <= e.Start || e.End > int64(len(stream)) {
			t.Fatalf("event %d: bad span [%d,%d) after %d in %d bytes", i, e.Start, e.End, prev, len(stream))
		}
		if c := stream[e.Start]; c == '\r' || c == '\n' {
			t.Fatalf("event %d: Start %d is on a line ending", i, e.Start)
		}
		if e.Terminated {
			if c := stream[e.End-1]; c != '\r' && c != '\n' {
				t.Fatalf("event %d: End %d not after a line ending", i, e.End)
			}
		} else if i != len(es)-1 || e.End != int64(len(stream)) {
			t.Fatalf("event %d: unterminated event must be last and end at the stream length", i)
		}
		prev = e.End
	}
}
