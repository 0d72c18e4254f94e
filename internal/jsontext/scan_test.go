package jsontext

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// depth returns how deep the containers of a valid document nest.
func depth(s string) int {
	d, maxD := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			i, _, _ = ScanString(s, i)
			i--
		case '{', '[':
			d++
			maxD = max(maxD, d)
		case '}', ']':
			d--
		}
	}
	return maxD
}

// checkValid is the contract of the validator: it accepts what
// encoding/json.Valid and gjson.Valid accept, as strings and as bytes; for
// a valid document ScanValue ends at its last byte and gives its kind, and
// with a depth bound it accepts it exactly when it nests no deeper.
func checkValid(t *testing.T, s string) {
	t.Helper()
	got := Valid(s)
	if got != Valid([]byte(s)) {
		t.Fatalf("Valid(%q) differs for string and []byte", s)
	}
	// encoding/json refuses to nest past 10,000 levels; gjson and Valid do not.
	if want := json.Valid([]byte(s)); got != want && strings.Count(s, "[")+strings.Count(s, "{") < 10000 {
		t.Fatalf("Valid(%q) = %v, encoding/json.Valid says %v", s, got, want)
	}
	if want := gjson.Valid(s); got != want {
		t.Fatalf("Valid(%q) = %v, gjson.Valid says %v", s, got, want)
	}
	if !got {
		return
	}
	trimmed := strings.Trim(s, " \t\r\n")
	end, k, ok := ScanValue(trimmed, 0, 0)
	if !ok || end != len(trimmed) {
		t.Fatalf("ScanValue(%q) = %d, %v: want %d, true", trimmed, end, ok, len(trimmed))
	}
	if want := kindOf(gjson.Parse(trimmed)); k != want {
		t.Fatalf("ScanValue(%q) kind %v, want %v", trimmed, k, want)
	}
	if k == String {
		_, f, _ := ScanString(trimmed, 0)
		body := trimmed[1 : len(trimmed)-1]
		if want := strings.IndexFunc(body, func(r rune) bool { return r >= 0x80 }) >= 0; (f&NonASCII != 0) != want {
			t.Fatalf("ScanString(%q) flags %b: NonASCII should be %v", trimmed, f, want)
		}
		if want := strings.Contains(body, `\`); (f&Escaped != 0) != want {
			t.Fatalf("ScanString(%q) flags %b: Escaped should be %v", trimmed, f, want)
		}
	}
	const bound = 5
	_, _, ok = ScanValue([]byte(trimmed), 0, bound)
	if want := depth(trimmed) <= bound; ok != want {
		t.Fatalf("ScanValue(%q, depth %d) = %v, want %v (depth %d)", trimmed, bound, ok, want, depth(trimmed))
	}
}

// kindOf is the Kind of a gjson value.
func kindOf(r gjson.Result) Kind {
	switch r.Type {
	case gjson.Null:
		return Null
	case gjson.True, gjson.False:
		return Bool
	case gjson.Number:
		return Number
	case gjson.String:
		return String
	}
	return Container
}

func TestValid(t *testing.T) {
	t.Parallel()
	for _, s := range seeds(t) {
		checkValid(t, s)
	}
}

// FuzzValid is the differential check of the validator against
// encoding/json.Valid and gjson.Valid.
func FuzzValid(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(checkValid)
}

// TestScanValueDepth: with a bound, the 65th level fails, empty or not,
// and the check does not allocate; without one, depth is the data's.
func TestScanValueDepth(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		want bool
	}{
		{strings.Repeat(`[`, 64) + strings.Repeat(`]`, 64), true},
		{strings.Repeat(`[`, 65) + strings.Repeat(`]`, 65), false},
		{strings.Repeat(`{"a":`, 64) + `{}` + strings.Repeat(`}`, 64), false},
		{strings.Repeat(`{"a":`, 62) + `[1,{}]` + strings.Repeat(`}`, 62), true},
		{`[true,false,null,"\u00e9",-1.5e3,{"a":[]}]`, true},
	} {
		b := []byte(tc.doc)
		end, _, ok := ScanValue(b, 0, 64)
		if ok != tc.want || ok && end != len(b) {
			t.Errorf("ScanValue(%.20q…, 64) = %d, %v; want %v", tc.doc, end, ok, tc.want)
		}
		if n := testing.AllocsPerRun(10, func() { ScanValue(b, 0, 64) }); n != 0 {
			t.Errorf("ScanValue(%.20q…, 64) allocates %v times", tc.doc, n)
		}
	}
	deep := strings.Repeat(`[`, 100000) + strings.Repeat(`]`, 100000)
	if _, _, ok := ScanValue(deep, 0, 0); !ok {
		t.Error("ScanValue without a bound refuses 100,000 levels")
	}
}

// TestScanInt: integers read as strconv reads them, anything else refused.
func TestScanInt(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"0", "-0", "7", "-7", "123456789012345678", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", "-9223372036854775809", "12345678901234567890", "99999999999999999999",
		"01", "-", "-01", "1.5", "1e3", "1E3", "", "a", "--1", "1,", "1]", "1 ",
	} {
		n, end, ok := ScanInt(s+"}", 0)
		num := strings.TrimRight(s, ",] ") // what follows a number is the caller's
		want, err := strconv.ParseInt(num, 10, 64)
		wantOK := err == nil && Valid(num) && !strings.ContainsAny(num, ".eE") // Valid refuses a leading zero
		if ok != wantOK || ok && (n != want || end != len(num)) {
			t.Errorf("ScanInt(%q) = %d, %d, %v; want %d, %v", s, n, end, ok, want, wantOK)
		}
	}
}

// TestScanStringNonASCII: NonASCII is set for every string holding a
// byte of 0x80 or above, wherever it is, and for a string that does not
// only when one of the seven bytes after it does.
func TestScanStringNonASCII(t *testing.T) {
	t.Parallel()
	for n := range 20 {
		plain := `"` + strings.Repeat("a", n) + `"`
		for _, doc := range []string{plain, plain + `,"é"`, plain + "1234567\xff"} {
			_, f, ok := ScanString(doc, 0)
			after := doc[len(plain):min(len(doc), len(plain)+7)]
			if want := strings.IndexFunc(after, func(r rune) bool { return r >= 0x80 }) >= 0; !ok || f&NonASCII != 0 && !want {
				t.Errorf("ScanString(%q) flags %b, ok %v: NonASCII with no such byte within seven after it", doc, f, ok)
			}
		}
		for at := 0; at <= n; at++ {
			doc := `"` + strings.Repeat("a", at) + "\xf7" + strings.Repeat("a", n-at) + `"xyz`
			if _, f, ok := ScanString(doc, 0); !ok || f&NonASCII == 0 {
				t.Errorf("ScanString(%q) flags %b, ok %v: want NonASCII", doc, f, ok)
			}
		}
	}
}
