package jsontext

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realworld holds the recorded streams the repository carries (see
// fixtures/README.md).
const realworld = "../../fixtures/realworld"

// payloads returns the data of every "data: " line of the recorded SSE
// streams whose names match pattern: real event payloads, JSON or not.
func payloads(t testing.TB, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(realworld, pattern))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded streams match %s: %v", pattern, err)
	}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				out = append(out, data)
			}
		}
	}
	return out
}

// edgeCases are documents at the corners of the grammar and of gjson's
// decoding: invalid JSON, escapes, surrogates, numbers, duplicate keys,
// nesting.
var edgeCases = []string{
	``, ` `, `[DONE]`, `{}`, `[]`, `5`, `"x"`, `null`, `true`, `{`, `}`, `{"a":}`,
	`{}`, `[]`, `[1]`, `[-0]`, `[-0.0e+0]`, `[0e0]`, `[1E-7]`, `[-]`, `[-a]`, `[00]`, `[1.e1]`, `[.5]`,
	`["\/\b\f\n\r\t\"\\"]`, `["\u00e9\uD83D\uDE42"]`, `["\uZZZZ"]`, `["\u"]`, `["a`, `["\"]`,
	`{"a" 1}`, `{,}`, `[,1]`, `[1 2]`, `{"a":1,}`, `{"a":1 "b":2}`, `[true,false,null]`, `[nul]`, `[True]`,
	"[\x7f]", "[\"\x7f\"]", "[\"\x00\"]", "[\"\xff\"]", "[1]x", "[ 1 ]", "[\n1\r]", "\t{\"a\":1}\r\n",
	`{"a":{"b":[{}]}}`, `[[[]]]`, `[[]`, `[]]`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`, `{"a":1e+5}`,
	`{"a":"\q"}`, `{"a":"\u12"}`, `{"a":"\u12g4"}`, `{"a":"\`, `{"\u0069d":"x","model":"m\u00e9"}`,
	`{"id":"\ud83d\ude00 \ud800 \udc00x \ud800\u0041 \ud800\n"}`, `{"id":-12345678901234567890,"model":1e400}`,
	`{"a":1,"a":2,"b":[1,{"c":null}],"d":"\"","e":1.50,"f":9007199254740993}`,
	strings.Repeat(`[`, 64) + strings.Repeat(`]`, 64), strings.Repeat(`[`, 65) + strings.Repeat(`]`, 65),
	`{"a":` + strings.Repeat(`{"b":`, 70) + `1` + strings.Repeat(`}`, 70) + `}`,
	"\"000000\xf7\"", "\"\xc3\xa9\"", "\"0123456\xff0123456\\n\"", // non-ASCII bytes before the end of an eight-byte word
}

// seeds are the edge cases and the recorded payloads.
func seeds(t testing.TB) []string {
	return append(append([]string(nil), edgeCases...), payloads(t, "*.sse")...)
}
