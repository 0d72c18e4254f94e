package jsonvalue

import (
	"strings"
	"testing"
)

// FuzzCanonical: Canonical gives what decoding and encoding the text
// again gives, whether or not it finds the text canonical already.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		`{"path":"src/f1.go"}`, `{"b":1,"a":2}`, `{"a":1,"a":2}`, ` {"a" : [1, 2.50, -0e3]} `, `{"a":"x\ny\"z\\"}`,
		`{"a":"\/"}`, `{"a":"\u00e9"}`, `{"a":"é"}`, "{\"a\":\"\u2028\"}", "{\"a\":\"\xff\"}", `[]`, `{}`, `[{}]`, `"s"`,
		`true`, `nul`, `1 2`, `{"a":1,}`, ``, `[[[[[[[[1]]]]]]]]`, `{"":0,"a":{"":[null,false]}}`, `{"a":"\t\b"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := Decode(s)
		want := ""
		if ok {
			want = Encode(v)
		}
		if got, gotOK := Canonical(s); got != want || gotOK != ok {
			t.Fatalf("Canonical(%q) = %q, %v; decoding and encoding gives %q, %v", s, got, gotOK, want, ok)
		}
	})
}

// TestCanonicalDeep: a value nested deeper than canonicalAt goes is left
// to encoding/json, which encodes it as it was; one nested ten million
// deep (deeper than encoding/json goes, and than a goroutine's stack
// holds a frame per level) is not one value it reads, and says so.
func TestCanonicalDeep(t *testing.T) {
	nested := func(depth int) string { return strings.Repeat("[", depth) + strings.Repeat("]", depth) }
	if s := nested(maxCanonicalDepth + 1); !sameCanonical(s, s, true) {
		t.Errorf("depth %d: Canonical did not give the text back", maxCanonicalDepth+1)
	}
	if s := nested(10_000_000); !sameCanonical(s, "", false) {
		t.Error("depth ten million: Canonical read a value encoding/json refuses")
	}
}

func sameCanonical(s, want string, wantOK bool) bool {
	got, ok := Canonical(s)
	return got == want && ok == wantOK
}
