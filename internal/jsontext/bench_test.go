package jsontext

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"
)

// BenchmarkValid checks the recorded event payloads with Valid and with
// the two libraries it must agree with (FuzzValid).
func BenchmarkValid(b *testing.B) {
	docs := payloads(b, "*.sse")
	bufs := make([][]byte, len(docs))
	n := 0
	for i, d := range docs {
		bufs[i] = []byte(d)
		n += len(d)
	}
	for _, v := range []struct {
		name  string
		valid func([]byte) bool
	}{
		{"jsontext", Valid[[]byte]},
		{"encoding-json", json.Valid},
		{"gjson", gjson.ValidBytes},
	} {
		b.Run("validator="+v.name, func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				for _, d := range bufs {
					v.valid(d)
				}
			}
		})
	}
}

// BenchmarkIndent indents the compact form of the committed inspect
// reports (fixtures/*.expect.json) with AppendIndent and with json.Indent.
func BenchmarkIndent(b *testing.B) {
	files, _ := filepath.Glob("../../fixtures/*.expect.json")
	if len(files) == 0 {
		b.Fatal("no fixtures/*.expect.json")
	}
	var docs [][]byte
	n := 0
	for _, f := range files {
		d, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, d); err != nil {
			b.Fatal(err)
		}
		docs = append(docs, c.Bytes())
		n += c.Len()
	}
	b.Run("indenter=jsontext", func(b *testing.B) {
		b.SetBytes(int64(n))
		b.ReportAllocs()
		var dst []byte
		for b.Loop() {
			for _, d := range docs {
				dst = AppendIndent(dst[:0], d, "", "  ")
			}
		}
	})
	b.Run("indenter=encoding-json", func(b *testing.B) {
		b.SetBytes(int64(n))
		b.ReportAllocs()
		var dst bytes.Buffer
		for b.Loop() {
			for _, d := range docs {
				dst.Reset()
				if err := json.Indent(&dst, d, "", "  "); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkUnescape decodes strings as a capture's request lines hold a
// body: the recorded event payloads, each JSON-encoded as a string, so
// their quotes are escapes a few bytes apart (tape.unquote), and the same
// payloads' own strings, mostly plain text (request.Parse's Str).
func BenchmarkUnescape(b *testing.B) {
	docs := payloads(b, "*.sse")
	var nested, plain []string
	for _, d := range docs {
		q, _ := json.Marshal(d)
		nested = append(nested, string(q[1:len(q)-1]))
		gjson.Parse(d).ForEach(func(_, v gjson.Result) bool {
			if v.Type == gjson.String && len(v.Raw) > 2 {
				plain = append(plain, v.Raw[1:len(v.Raw)-1])
			}
			return true
		})
	}
	for _, in := range []struct {
		name string
		strs []string
	}{{"body", nested}, {"text", plain}} {
		n := 0
		for _, s := range in.strs {
			n += len(s)
		}
		b.Run("strings="+in.name, func(b *testing.B) {
			b.SetBytes(int64(n))
			var dst []byte
			for b.Loop() {
				for _, s := range in.strs {
					dst, _ = AppendUnescaped(dst[:0], s)
				}
			}
		})
	}
}
