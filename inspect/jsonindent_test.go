package inspect

import (
	"bytes"
	"encoding/json"
	"testing"
)

// indentedByEncoder is what appendIndented must match: a json.Encoder's
// indented output, without its trailing newline.
func indentedByEncoder(t testing.TB, v any, prefix, indent string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, indent)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// TestEncodeIndentedSameAsEncoder: encodeIndented writes every fixture's
// report (and its sessions) exactly as json.Encoder's indentation does.
func TestEncodeIndentedSameAsEncoder(t *testing.T) {
	for _, c := range pipelineCaptures(t) {
		rep := Inspect(c, Options{})
		for _, v := range []any{rep, rep.Exchanges, rep.Sessions, c.Name} {
			got, err := encodeIndented(v, "    ", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if want := indentedByEncoder(t, v, "    ", "  "); !bytes.Equal(got, want) {
				t.Fatalf("%s: %s", c.Name, firstDiff(string(want), string(got)))
			}
		}
	}
}

// FuzzAppendIndented: for any JSON document, appendIndented of its
// compact form is json.Indent's output.
func FuzzAppendIndented(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `{"a":[]}`, `[{},[],{"":""}]`, `"x"`, `1`, `null`,
		`{"a\"b":"c\\","d":"\\\"","e":[1,2.5e3,true,false,null],"f":{"g":{}}}`,
		`["\u2028<&>", "tab\there", "{[,:]}", "\\\\"]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var v any
		if json.Unmarshal([]byte(doc), &v) != nil {
			return
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, []byte(doc)); err != nil {
			return
		}
		var want bytes.Buffer
		if err := json.Indent(&want, compact.Bytes(), "> ", "\t"); err != nil {
			t.Fatal(err)
		}
		if got := appendIndented(nil, compact.Bytes(), "> ", "\t"); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%q\n got %q\nwant %q", compact.Bytes(), got, want.Bytes())
		}
	})
}
