package jsontext

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// checkUnescape is the contract of the unescaper on the body of any valid
// JSON string: it decodes as gjson does, and when it reports ok and the
// bytes are UTF-8, as encoding/json does; Unescape and the []byte form
// agree.
func checkUnescape(t *testing.T, body string) {
	t.Helper()
	quoted := `"` + body + `"`
	if end, _, ok := ScanString(quoted, 0); !ok || end != len(quoted) {
		return
	}
	got, ok := AppendUnescaped(nil, body)
	if want := gjson.Parse(quoted).String(); string(got) != want {
		t.Fatalf("AppendUnescaped(%q) = %q, gjson says %q", body, got, want)
	}
	if s := Unescape(body); s != string(got) {
		t.Fatalf("Unescape(%q) = %q, AppendUnescaped %q", body, s, got)
	}
	if b, okB := AppendUnescaped([]byte("x"), []byte(body)); string(b[1:]) != string(got) || okB != ok {
		t.Fatalf("AppendUnescaped([]byte(%q)) = %q, %v; for the string %q, %v", body, b[1:], okB, got, ok)
	}
	var want string
	if err := json.Unmarshal([]byte(quoted), &want); err != nil {
		t.Fatalf("encoding/json refuses %s: %v", quoted, err)
	}
	if ok && utf8.ValidString(body) && string(got) != want {
		t.Fatalf("AppendUnescaped(%q) = %q and ok, encoding/json says %q", body, got, want)
	}
}

func TestUnescape(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body, want string
		ok         bool
	}{
		{`plain`, "plain", true},
		{`\"\\\/\b\f\n\r\t`, "\"\\/\b\f\n\r\t", true},
		{`\u00e9\uD83D\uDE42`, "é🙂", true},
		{`lone \ud800 x`, "lone \uFFFD x", false},
		{`\udc00`, "\uFFFD", false},
		{`\ud800\u0041z`, "\uFFFDz", false}, // gjson consumes the second escape
		{`\ud800`, "\uFFFD", false},
	} {
		got, ok := AppendUnescaped(nil, tc.body)
		if string(got) != tc.want || ok != tc.ok {
			t.Errorf("AppendUnescaped(%q) = %q, %v; want %q, %v", tc.body, got, ok, tc.want, tc.ok)
		}
		checkUnescape(t, tc.body)
	}
	for _, bad := range []string{`\`, `\x`, `\u12`, `\u12g4`, `\ud800\u12g4`} {
		if _, ok := AppendUnescaped(nil, bad); ok {
			t.Errorf("AppendUnescaped(%q) reports ok", bad)
		}
	}
}

func FuzzUnescape(f *testing.F) {
	for _, s := range []string{`a\"b\\c\/d\b\f\n\r\t`, `\ud83d\ude00 \ud800 \udc00x \ud800\u0041 \ud800\n`, "\xff\\u00e9", `\u0000`} {
		f.Add(s)
	}
	f.Fuzz(checkUnescape)
}

// FuzzAppendString: AppendString reads a string as ScanString finds it and
// decodes it as AppendUnescaped does, both over the line it stands in
// and over the string alone.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{`"a\"b\\c\/d\b\f\n\r\t" x`, `"\ud83d\ude00 \ud800 \udc00x" `, "\"\xff\\u00e9\"", `"\u0000"`, `"abc`, "\"a\x01b\"", `"\u12"`, `"\ud800\u12g4"`, `"0123456789abcdef\"0123456789"`, `"é…"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if line == "" || line[0] != '"' {
			line = `"` + line
		}
		end, flags, ok := ScanString(line, 0)
		var want []byte
		if ok {
			want, ok = AppendUnescaped(nil, line[1:end-1])
		}
		for _, in := range []string{line, line[:max(end, 1)]} {
			got, gotEnd, gotFlags, gotOK := AppendString([]byte("x"), in, 0)
			if gotOK != ok || ok && (gotEnd != end || string(got[1:]) != string(want) || gotFlags&Escaped != flags&Escaped) {
				t.Fatalf("AppendString(%q) = %q, %d, %v, %v; ScanString and AppendUnescaped %q, %d, %v, %v", in, got[1:], gotEnd, gotFlags, gotOK, want, end, flags, ok)
			}
			if ok && gotFlags&NonASCII == 0 && !isASCII(line[1:end-1]) {
				t.Fatalf("AppendString(%q) says ASCII", in)
			}
			if b, _, _, bOK := AppendString(nil, []byte(in), 0); bOK != gotOK || ok && string(b) != string(want) {
				t.Fatalf("AppendString([]byte(%q)) = %q, %v", in, b, bOK)
			}
		}
	})
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
