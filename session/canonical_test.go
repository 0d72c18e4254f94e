package session

import (
	"strings"
	"testing"

	"github.com/seam-dev/seam/internal/jsonvalue"
)

// FuzzCanonicalJSON: canonicalJSON gives what decoding and encoding the
// text again gives (jsonvalue), whether or not it finds the text
// canonical already.
func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{
		`{"path":"src/f1.go"}`, `{"b":1,"a":2}`, `{"a":1,"a":2}`, ` {"a" : [1, 2.50, -0e3]} `, `{"a":"x\ny\"z\\"}`,
		`{"a":"\/"}`, `{"a":"\u00e9"}`, `{"a":"é"}`, "{\"a\":\"\u2028\"}", "{\"a\":\"\xff\"}", `[]`, `{}`, `[{}]`, `"s"`,
		`true`, `nul`, `1 2`, `{"a":1,}`, ``, `[[[[[[[[1]]]]]]]]`, `{"":0,"a":{"":[null,false]}}`, `{"a":"\t\b"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := strings.TrimSpace(s)
		switch v, ok := jsonvalue.Decode(want); {
		case want == "":
			want = "{}"
		case ok:
			want = jsonvalue.Encode(v)
		}
		if got := canonicalJSON(s); got != want {
			t.Fatalf("canonicalJSON(%q) = %q, decoding and encoding gives %q", s, got, want)
		}
	})
}

// TestCanonicalDeep: a value nested deeper than canonicalAt goes is left
// to encoding/json, and one nested ten million deep (deeper than
// encoding/json goes, and than a goroutine's stack holds a frame per
// level) is returned as it is.
func TestCanonicalDeep(t *testing.T) {
	for _, depth := range []int{maxCanonicalDepth + 1, 10_000_000} {
		s := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		if got := canonicalJSON(s); got != s {
			t.Errorf("depth %d: canonicalJSON changed the text", depth)
		}
	}
}
