package visible

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/seam-dev/seam/visible/visibletest"
)

func TestString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain text, über ✓ 漢字 🙂 → «»", "plain text, über ✓ 漢字 🙂 → «»"},
		{"❤️ e\u0301", "❤️ e\u0301"}, // variation selector, combining mark
		{"a\nb\tc\rd", "a↵b⇥c␍d"},
		{"\x1b]52;c;aGk=\x07", "␛]52;c;aGk=␇"}, // OSC 52 writes the clipboard
		{"\x1b[2J\x1b[H", "␛[2J␛[H"},
		{"\x00\x1f\x7f", "␀␟␡"},
		{"\u009b31m\u0085", "⟨U+009B⟩31m⟨U+0085⟩"}, // C1 CSI, NEL
		{"abc\u202egnp.exe", "abc⟨U+202E⟩gnp.exe"},
		{"\u2066x\u2069\u200e\u200f\u061c", "⟨U+2066⟩x⟨U+2069⟩⟨U+200E⟩⟨U+200F⟩⟨U+061C⟩"},
		{"zero\u200bwidth\ufeff\u00ad", "zero⟨U+200B⟩width⟨U+FEFF⟩⟨U+00AD⟩"},
		{"\u2028\u2029", "⟨U+2028⟩⟨U+2029⟩"},
		{"tag\U000E0041", "tag⟨U+E0041⟩"},
		{"\xff\xc3", `⟨\xFF⟩⟨\xC3⟩`},
		{"é"[:1] + "x", `⟨\xC3⟩x`},
		// Text that looks like a marker is drawn escaped.
		{"↵⇥␛␡⟨U+0041⟩", "⟨U+21B5⟩⟨U+21E5⟩⟨U+241B⟩⟨U+2421⟩⟨U+27E8⟩U+0041⟩"},
		{`\x1b \u202e`, `\x1b \u202e`},
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := Text("a\n\tb\r\n\x1b"); got != "a\n\tb␍\n␛" {
		t.Errorf("Text = %q", got)
	}
}

func TestPieces(t *testing.T) {
	var got []string
	for p := range Pieces("ab\x1bc\u202e", Line) {
		s := p.Text
		if p.Marker {
			s = "[" + s + "]"
		}
		got = append(got, s)
	}
	if strings.Join(got, "|") != "ab|[␛]|c|[⟨U+202E⟩]" {
		t.Errorf("pieces %q", got)
	}
	for range Pieces("\x1b\x1b", Line) {
		break // stopping early must not panic
	}
}

// needs reports whether rendering s in mode m changes it.
func needs(s string, m Mode) bool { return firstUnsafe(s, m) < len(s) }

// unrender reverses render: markers back to the characters they stand for.
func unrender(s string) (string, bool) {
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch {
		case r == newlineMark:
			b.WriteByte('\n')
		case r == tabMark:
			b.WriteByte('\t')
		case r >= pictures && r < pictures+0x20:
			b.WriteByte(byte(r - pictures))
		case r == pictures+0x21:
			b.WriteByte(0x7f)
		case r == open:
			end := strings.IndexRune(s, '⟩')
			if end < 0 {
				return "", false
			}
			inner := s[n:end]
			switch {
			case strings.HasPrefix(inner, `\x`) && len(inner) == 4:
				v, err := strconv.ParseUint(inner[2:], 16, 8)
				if err != nil {
					return "", false
				}
				b.WriteByte(byte(v))
			case strings.HasPrefix(inner, "U+") && len(inner) >= 6:
				v, err := strconv.ParseUint(inner[2:], 16, 32)
				if err != nil {
					return "", false
				}
				b.WriteRune(rune(v))
			default:
				return "", false
			}
			n = end + len("⟩")
		default:
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String(), true
}

// dangerous reports a rune a terminal may act on, or that hides or
// reorders text.
func dangerous(r rune) bool {
	return r < 0x20 || r >= 0x7f && r < 0xa0 || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029
}

// FuzzString: the output is UTF-8 without a control, bidi or other format
// character; it turns back into the input (so distinct inputs stay
// distinct); text without such characters passes unchanged; the pieces
// make the output; and Text differs only in letting \n and \t through.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "hello", "\x1b]52;c;aGk=\x07", "\u202e\u2066\u200f", "\xff\xfe", "↵⇥␛⟨U+41⟩⟨", "a\nb\tc\r", "\u0085\u009b", "é"[:1]} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, m := range []Mode{Line, Lines} {
			out := render(s, m)
			if err := visibletest.Check(out); err != nil {
				t.Fatalf("mode %d: %q gives %q: %v", m, s, out, err)
			}
			if Styled(out) != out {
				t.Fatalf("mode %d: Styled changes %q, drawn from %q, into %q", m, out, s, Styled(out))
			}
			if !utf8.ValidString(out) {
				t.Fatalf("mode %d: %q gives invalid UTF-8 %q", m, s, out)
			}
			for _, r := range out {
				if dangerous(r) && !(m == Lines && (r == '\n' || r == '\t')) {
					t.Fatalf("mode %d: %q gives %q, which holds %U", m, s, out, r)
				}
			}
			back, ok := unrender(out)
			if m == Lines {
				back, ok = unrender(strings.NewReplacer("\n", "↵", "\t", "⇥").Replace(out))
			}
			if !ok || back != s {
				t.Fatalf("mode %d: %q gives %q, which reads back as %q (%v)", m, s, out, back, ok)
			}
			if (out == s) == needs(s, m) {
				t.Fatalf("mode %d: needs(%q) = %v but the output is %q", m, s, needs(s, m), out)
			}
			var joined strings.Builder
			for p := range Pieces(s, m) {
				if p.Text == "" || !p.Marker && needs(p.Text, m) {
					t.Fatalf("mode %d: piece %+v of %q", m, p, s)
				}
				if c, ok := unrender(p.Text); p.Marker && (!ok || len(c) == 0 || utf8.RuneCountInString(c) > 1) {
					t.Fatalf("mode %d: marker %+v of %q stands for %q", m, p, s, c)
				}
				joined.WriteString(p.Text)
			}
			if joined.String() != out {
				t.Fatalf("mode %d: pieces of %q make %q, want %q", m, s, joined.String(), out)
			}
		}
		if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
			return dangerous(r) || r == newlineMark || r == tabMark || r >= pictures && r <= pictures+0x21 || r == open
		}) && String(s) != s {
			t.Fatalf("printable %q changed to %q", s, String(s))
		}
	})
}

func BenchmarkStringClean(b *testing.B) {
	s := strings.Repeat("gpt-4o-mini /v1/chat/completions call_abc123 ", 4)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		String(s)
	}
}

func TestStyled(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"\x1b[1mbold\x1b[0m \x1b[38;5;196mred\x1b[m\n\tnext", "\x1b[1mbold\x1b[0m \x1b[38;5;196mred\x1b[m\n\tnext"},
		{"\x1b[38:2::255:0:0mx", "\x1b[38:2::255:0:0mx"},
		{"a\x1b]52;c;aGk=\x07b", "a␛]52;c;aGk=␇b"},
		{"\x1b[2J\x1b[6n\x1b[?25l", "␛[2J␛[6n␛[?25l"},
		{"\x1b[31", "␛[31"},
		{"\x1b", "␛"},
		{"\r\x00\x7f\u009b\u202e\xff", "␍␀␡⟨U+009B⟩⟨U+202E⟩⟨\\xFF⟩"},
		// Markers and printable text pass: Styled may follow String.
		{"␛[2J ⟨U+202E⟩ ↵ ⇥ → é", "␛[2J ⟨U+202E⟩ ↵ ⇥ → é"},
	}
	for _, tt := range tests {
		if got := Styled(tt.in); got != tt.want {
			t.Errorf("Styled(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzStyled: the output holds nothing a terminal acts on but SGR
// sequences, line feeds and tabs; text that holds nothing else passes
// unchanged; and text drawn with String passes unchanged.
func FuzzStyled(f *testing.F) {
	for _, s := range []string{"", "\x1b[1mx\x1b[0m", "\x1b]52;c;x\x07", "\x1b[", "\x1b[31;", "\u202e\xff", "a\nb\tc\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Styled(s)
		if err := visibletest.Check(strings.ReplaceAll(out, ":", ";")); err != nil {
			t.Fatalf("Styled(%q) = %q: %v", s, out, err)
		}
		if visibletest.Check(s) == nil && out != s {
			t.Fatalf("Styled changed safe %q into %q", s, out)
		}
		if d := String(s); Styled(d) != d {
			t.Fatalf("Styled changed %q, drawn from %q, into %q", d, s, Styled(d))
		}
	})
}

// FuzzJSON: any string encoded by encoding/json and passed through JSON
// decodes to the same string, and the document holds nothing a terminal
// acts on.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b]52;c;x\x07", "\u202e\u2066\u009b\x7f\U000E0041", "\xff", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc, err := json.Marshal(map[string]string{s: s})
		if err != nil {
			t.Fatal(err)
		}
		out := JSON(enc)
		if err := visibletest.Check(string(out)); err != nil {
			t.Fatalf("JSON(%s) = %s: %v", enc, out, err)
		}
		var a, b map[string]string
		if err := json.Unmarshal(enc, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &b); err != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("JSON(%s) = %s decodes as %q (%v), want %q", enc, out, b, err, a)
		}
	})
}
