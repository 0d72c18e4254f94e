package jsontext

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzAppendIndent: for any JSON document, AppendIndent of its compact
// form is json.Indent's output.
func FuzzAppendIndent(f *testing.F) {
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
		if got := AppendIndent(nil, compact.Bytes(), "> ", "\t"); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%q\n got %q\nwant %q", compact.Bytes(), got, want.Bytes())
		}
	})
}

// TestEncodeIndent: EncodeIndent writes what a json.Encoder with
// SetEscapeHTML(false) and SetIndent writes, less the final newline.
func TestEncodeIndent(t *testing.T) {
	t.Parallel()
	v := map[string]any{"html": "<a&b>", "list": []any{1.5, "x", nil, map[string]any{}}, "empty": []any{}, "nested": map[string]any{"k": "\u2028"}}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("  ", "\t")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	got, err := EncodeIndent(v, "  ", "\t")
	if err != nil {
		t.Fatal(err)
	}
	if want := bytes.TrimSuffix(b.Bytes(), []byte("\n")); !bytes.Equal(got, want) {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := EncodeIndent(func() {}, "", " "); err == nil {
		t.Fatal("EncodeIndent of a func: no error")
	}
}
