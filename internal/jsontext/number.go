package jsontext

import (
	"strconv"
	"strings"
)

// SameNumber compares two JSON numbers as written by value (1.0 equals 1,
// 1e2 equals 100, -0 equals 0), in time linear in their text: a hostile
// exponent (1e999999) costs big.Rat a number of ~400 KB and 20 ms to
// build. ok is false when either is not a JSON number or its exponent does
// not fit in 32 bits.
func SameNumber(a, b string) (same, ok bool) {
	na, okA := decimalOf(a)
	nb, okB := decimalOf(b)
	if !okA || !okB {
		return false, false
	}
	return na == nb, true
}

// decimal is a JSON number in one form per value: sign, significant
// digits (no leading or trailing zeros) and the power of ten they are
// multiplied by; zero is the zero decimal, whatever its sign.
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

// decimalOf reads a JSON number into its decimal form.
func decimalOf(s string) (decimal, bool) {
	if end, ok := ScanNumber(s, 0); !ok || end != len(s) {
		return decimal{}, false
	}
	var d decimal
	if strings.HasPrefix(s, "-") {
		d.neg, s = true, s[1:]
	}
	mant := s
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.ParseInt(s[i+1:], 10, 32)
		if err != nil {
			return decimal{}, false
		}
		mant, d.exp = s[:i], e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	d.exp -= int64(len(frac))
	trimmed := strings.TrimRight(digits, "0")
	d.exp += int64(len(digits) - len(trimmed))
	if d.digits = trimmed; d.digits == "" {
		return decimal{}, true
	}
	return d, true
}
