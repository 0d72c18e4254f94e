package jsstring

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestDecode holds Decode to what node's TextDecoder gives for the same
// bytes (new TextDecoder().decode(Buffer.from(hex, "hex")), node v20.20.2),
// Unicode Table 3-8's example first.
func TestDecode(t *testing.T) {
	const r = "\uFFFD"
	for _, c := range []struct{ in, want string }{
		{"\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64", "a" + r + r + r + "b" + r + "c" + r + r + "d"},
		{"yo\xff\xff\xff\x80w", "yo" + r + r + r + r + "w"},
		{"\xe2\x82", r},
		{"\xe2\x82\xac", "€"},
		{"\xe0\x80\x80", r + r + r}, // overlong: E0 takes A0..BF only
		{"\xed\xa0\x80", r + r + r}, // a surrogate: ED takes 80..9F only
		{"\xf0\x9f\x98", r},
		{"\xf4\x90\x80\x80", r + r + r + r}, // past U+10FFFF
		{"\xf5", r},
		{"\xc0\xaf", r + r},
		{"a\xef\xbf\xbdb", "a\uFFFDb"}, // U+FFFD itself is valid
		{"plain", "plain"},
	} {
		if got := Decode(c.in); got != c.want {
			t.Errorf("Decode(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzDecode: the result is valid UTF-8, keeps every valid sequence, and
// never has more U+FFFD than the input has bytes.
func FuzzDecode(f *testing.F) {
	f.Add("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64")
	f.Fuzz(func(t *testing.T, s string) {
		d := Decode(s)
		if !utf8.ValidString(d) {
			t.Fatalf("Decode(%q) = %q, not valid UTF-8", s, d)
		}
		if utf8.ValidString(s) && d != s {
			t.Fatalf("Decode changed valid %q", s)
		}
		if strings.ReplaceAll(d, "\uFFFD", "") != strings.ReplaceAll(strings.ToValidUTF8(s, ""), "\uFFFD", "") {
			t.Fatalf("Decode(%q) = %q lost or made a valid character", s, d)
		}
		if strings.Count(d, "\uFFFD") > len(s) {
			t.Fatalf("Decode(%q) = %q: more replacements than bytes", s, d)
		}
	})
}
