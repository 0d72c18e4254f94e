package jsstring

import (
	"testing"
	"unicode/utf8"
)

// TestTrim: the code points String.prototype.trim removes (ECMAScript
// WhiteSpace and LineTerminator) are trimmed at both ends, those it keeps
// (NEL, zero-width space, a letter) are not, and TrimBytes agrees with
// Trim.
func TestTrim(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{" \t\n\v\f\rx\r\n", "x"},
		{"\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\ufeffx y\ufeff", "x y"},
		{"\u0085x\u0085", "\u0085x\u0085"}, // NEL: strings.TrimSpace would remove it
		{"\u200bx\u200b", "\u200bx\u200b"}, // zero-width space is no WhiteSpace
		{"   ", ""},
		{"a\u00a0", "a"},
	} {
		if got := Trim(tc.in); got != tc.want {
			t.Errorf("Trim(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := string(TrimBytes([]byte(tc.in))); got != tc.want {
			t.Errorf("TrimBytes(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestTrimBytesInPlace: with ASCII at both ends, TrimBytes returns a
// subslice of its argument, not a copy.
func TestTrimBytesInPlace(t *testing.T) {
	t.Parallel()
	b := []byte("  {\"a\":1}\r")
	got := TrimBytes(b)
	if string(got) != `{"a":1}` || &got[0] != &b[2] {
		t.Errorf("TrimBytes(%q) = %q, not in place", b, got)
	}
}

// FuzzTrim: TrimBytes is Trim, whatever the bytes.
func FuzzTrim(f *testing.F) {
	f.Add("\u3000x ")
	f.Add("\xff \xe2\x80")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(TrimBytes([]byte(s))), Trim(s); got != want {
			t.Errorf("TrimBytes(%q) = %q, Trim gives %q", s, got, want)
		}
		if got := Trim(s); utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Errorf("Trim(%q) = %q cuts a rune", s, got)
		}
	})
}
