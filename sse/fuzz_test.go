package sse

import (
	"reflect"
	"testing"
)

// FuzzParse checks that parsing never panics, that the result does not depend
// on the Feed split, that offsets are consistent, and that re-encoding the
// events and parsing again gives back the same Type, Data, ID and Retry.
func FuzzParse(f *testing.F) {
	for _, c := range readCorpus(f, "testdata/*.sse") {
		f.Add(c.data, uint8(7))
	}
	for _, s := range splitInputs {
		f.Add([]byte(s), uint8(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		want := parseChunks(data)
		if got := parseChunks(splitEvery(data, int(chunk%32)+1)...); !reflect.DeepEqual(got, want) {
			t.Fatalf("split by %d differs:\n got %+v\nwant %+v", chunk%32+1, got, want)
		}
		if got := parseChunksView(splitEvery(data, int(chunk%32)+1)...); !reflect.DeepEqual(got, want) {
			t.Fatalf("FeedView split by %d differs:\n got %+v\nwant %+v", chunk%32+1, got, want)
		}
		checkSpans(t, data, want)

		var enc Encoder
		var out []byte
		for _, e := range want {
			out = enc.Append(out, e)
		}
		back := parseChunks(out)
		if len(back) != len(want) {
			t.Fatalf("re-encoded %d events, parsed back %d:\n%q", len(want), len(back), out)
		}
		for i := range want {
			w, g := want[i], back[i]
			// Retry 0 is not written by the encoder (see AppendEvent).
			if w.Retry == 0 {
				w.Retry = -1
			}
			if g.Type != w.Type || g.Data != w.Data || g.ID != w.ID || g.Retry != w.Retry {
				t.Fatalf("event %d: re-parsed %+v, want %+v", i, g, w)
			}
		}
	})
}
