package jsontext

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// walkScanner reads the value at the scanner's position as a tree of
// results: each container's members or elements in order, as gjson's
// ForEach yields them.
func walkScanner(sc *Scanner) []string {
	var out []string
	var walk func()
	walk = func() {
		switch sc.Peek() {
		case '{':
			sc.Open('{')
			out = append(out, "{")
			for k := range sc.Members() {
				out = append(out, "key "+k)
				walk()
			}
			out = append(out, "}")
		case '[':
			sc.Open('[')
			out = append(out, "[")
			for n := 0; sc.Elem(&n); {
				walk()
			}
			out = append(out, "]")
		default:
			v := sc.Value()
			r := v.Result()
			out = append(out, v.Raw, v.String(), r.String(), r.Raw)
		}
	}
	walk()
	return out
}

// walkGJSON is walkScanner done with gjson on a valid document.
func walkGJSON(r gjson.Result) []string {
	var out []string
	var walk func(r gjson.Result)
	walk = func(r gjson.Result) {
		switch {
		case r.IsObject():
			out = append(out, "{")
			r.ForEach(func(k, v gjson.Result) bool {
				out = append(out, "key "+k.String())
				walk(v)
				return true
			})
			out = append(out, "}")
		case r.IsArray():
			out = append(out, "[")
			r.ForEach(func(_, v gjson.Result) bool {
				walk(v)
				return true
			})
			out = append(out, "]")
		default:
			out = append(out, r.Raw, r.String(), r.String(), r.Raw)
		}
	}
	walk(r)
	return out
}

// checkScanner: the scanner ends well exactly on what gjson.Valid accepts,
// and on it yields every key and value as gjson's ForEach does; Str, Int,
// Raw and True read a top-level value as gjson's Result does.
func checkScanner(t *testing.T, doc string) {
	t.Helper()
	sc := NewScanner(doc)
	got := walkScanner(&sc)
	if ok := sc.End(); ok != gjson.Valid(doc) {
		t.Fatalf("scanner End on %q = %v, gjson.Valid says %v", doc, ok, !ok)
	}
	if !gjson.Valid(doc) {
		return
	}
	want := walkGJSON(gjson.Parse(doc))
	if len(got) != len(want) {
		t.Fatalf("scanner on %q yields %q, gjson %q", doc, got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("scanner on %q yields %q, gjson %q", doc, got, want)
		}
	}
	r := gjson.Parse(strings.Trim(doc, " \t\r\n")) // gjson keeps the space after an object or array in Raw
	for _, read := range []func(*Scanner) (any, any){
		func(sc *Scanner) (any, any) { return sc.Str(), r.String() },
		func(sc *Scanner) (any, any) { return sc.Int(), r.Int() },
		func(sc *Scanner) (any, any) { return sc.Raw(), r.Raw },
		func(sc *Scanner) (any, any) { return sc.True(), r.Type == gjson.True },
	} {
		sc := NewScanner(doc)
		if g, w := read(&sc); g != w || !sc.End() {
			t.Fatalf("read of %q gives %v, gjson %v", doc, g, w)
		}
	}
}

func TestScanner(t *testing.T) {
	t.Parallel()
	for _, s := range seeds(t) {
		checkScanner(t, s)
	}
}

func FuzzScanner(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(checkScanner)
}

// checkGetFields compares GetFields with one gjson Get per key on the
// document and on each of its top-level values.
func checkGetFields(t *testing.T, data string) {
	t.Helper()
	if !gjson.Valid(data) {
		return
	}
	keys := []string{"type", "id", "name", "call_id", "delta", "choices", "index", "item", "response", "a", "b", "text", "content", "usage"}
	got := make([]gjson.Result, len(keys))
	check := func(v gjson.Result) {
		GetFields(v, keys, got)
		for i, k := range keys {
			want := v.Get(k)
			g := got[i]
			if g.Type != want.Type || g.Raw != want.Raw || g.Str != want.Str || g.Num != want.Num {
				t.Errorf("GetFields(%q)[%q] = %+v, Get gives %+v", v.Raw, k, g, want)
			}
		}
	}
	top := gjson.Parse(data)
	check(top)
	top.ForEach(func(_, v gjson.Result) bool {
		check(v)
		return true
	})
}

func TestGetFieldsMatchesGet(t *testing.T) {
	t.Parallel()
	for _, data := range seeds(t) {
		checkGetFields(t, data)
	}
	checkGetFields(t, `{"id":1,"id":2,"\u0074ype":"x","name":{"a":[1]},"type":"y"}`)
	checkGetFields(t, `{"x":{"id":"nested"},"id":null}`)
}

func FuzzGetFields(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(checkGetFields)
}
