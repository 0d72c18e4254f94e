package jsontext

import (
	"math/big"
	"strings"
	"testing"
)

// checkSameNumber: SameNumber agrees with exact rational arithmetic on
// numbers whose exponents big.Rat builds quickly, and refuses what is not
// a JSON number.
func checkSameNumber(t *testing.T, a, b string) {
	t.Helper()
	same, ok := SameNumber(a, b)
	endA, okA := ScanNumber(a, 0)
	endB, okB := ScanNumber(b, 0)
	if valid := okA && endA == len(a) && okB && endB == len(b); !valid {
		if ok {
			t.Fatalf("SameNumber(%q, %q) reads something that is not a JSON number", a, b)
		}
		return
	}
	if bigExp(a) || bigExp(b) {
		return // big.Rat would take long over it, or refuse it
	}
	ra, _ := new(big.Rat).SetString(a)
	rb, _ := new(big.Rat).SetString(b)
	if !ok || same != (ra.Cmp(rb) == 0) {
		t.Fatalf("SameNumber(%q, %q) = %v, %v; big.Rat says %v", a, b, same, ok, ra.Cmp(rb) == 0)
	}
}

// bigExp reports whether a JSON number has an exponent of more than three
// digits.
func bigExp(s string) bool {
	i := strings.IndexAny(s, "eE")
	return i >= 0 && len(strings.TrimLeft(s[i+1:], "+-0")) > 3
}

func TestSameNumber(t *testing.T) {
	t.Parallel()
	for _, c := range [][2]string{
		{"1", "1.0"}, {"100", "1e2"}, {"100", "1E+2"}, {"0.001", "1e-3"}, {"0.10", "1e-1"}, {"120", "12e1"},
		{"0", "-0.0e5"}, {"-1.5", "-15e-1"}, {"1", "-1"}, {"1", "10"}, {"0.1", "0.01"}, {"12", "21"},
		{"01", "1"}, {"1.", "1"}, {".5", "0.5"}, {"1e", "1"}, {"+1", "1"}, {"", "0"},
	} {
		checkSameNumber(t, c[0], c[1])
	}
	if same, ok := SameNumber("1e999999", "10e999998"); !ok || !same {
		t.Error("1e999999 and 10e999998 differ")
	}
	if same, ok := SameNumber("1e999999", "1e999998"); !ok || same {
		t.Error("1e999999 and 1e999998 are the same")
	}
	if _, ok := SameNumber("1e99999999999", "1"); ok {
		t.Error("an exponent past 32 bits is read")
	}
}

func FuzzSameNumber(f *testing.F) {
	f.Add("1", "1.0")
	f.Add("-0.5e1", "-5")
	f.Add("120", "12E+1")
	f.Fuzz(checkSameNumber)
}
