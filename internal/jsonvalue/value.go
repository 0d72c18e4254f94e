package jsonvalue

import (
	"bytes"
	"encoding/json"
	"io"
	"math/big"
	"strconv"
	"strings"
)

// SameText reports whether two JSON texts say the same: equal as strings
// or, when both are one JSON value, as values (Equal: key order, spacing
// and how a number is written do not matter).
func SameText(a, b string) bool {
	if a == b {
		return true
	}
	va, okA := Decode(a)
	vb, okB := Decode(b)
	return okA && okB && Equal(va, vb, false)
}

// Encode renders a decoded JSON value compactly, object keys sorted and
// <, > and & as they are (they are evidence and arguments, not HTML); ""
// when v is not one.
func Encode(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Decode decodes one JSON value, numbers kept as written (json.Number),
// and reports whether s is exactly one valid value (white space around it
// allowed).
func Decode(s string) (any, bool) {
	if strings.TrimSpace(s) == "" {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false // more than one value, or bytes that are none
	}
	return v, true
}

// Equal compares two decoded JSON values: numbers by value (1.0 equals
// 1), objects regardless of key order. loose compares scalars by their
// text and null as "", as for a value read out of XML, which carries no
// types.
func Equal(a, b any, loose bool) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !Equal(v, w, loose) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i], loose) {
				return false
			}
		}
		return true
	}
	if x, ok := a.(json.Number); ok {
		if y, ok := b.(json.Number); ok {
			if same, ok := sameNumber(x, y); ok {
				return same
			}
		}
	}
	if na, ok := number(a); ok {
		if nb, ok := number(b); ok {
			return na.Cmp(nb) == 0
		}
	}
	if loose {
		sa, okA := scalarText(a)
		sb, okB := scalarText(b)
		return okA && okB && sa == sb
	}
	return a == b
}

// number returns a JSON number (json.Number or float64) as an exact
// rational.
func number(v any) (*big.Rat, bool) {
	var s string
	switch n := v.(type) {
	case json.Number:
		s = string(n)
	case float64:
		r := new(big.Rat)
		if r.SetFloat64(n) == nil {
			return nil, false
		}
		return r, true
	default:
		return nil, false
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

// sameNumber compares two JSON numbers as written (json.Number) by value
// (1.0 equals 1 and 1e2 equals 100), in time linear in their text: a
// hostile exponent (1e999999) costs big.Rat a number of ~400 KB and 20 ms
// to build. ok is false when either is not a valid JSON number.
func sameNumber(a, b json.Number) (same, ok bool) {
	na, okA := decimalOf(string(a))
	nb, okB := decimalOf(string(b))
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

// decimalOf reads a JSON number (RFC 8259 §6) into its decimal form.
func decimalOf(s string) (decimal, bool) {
	var d decimal
	if strings.HasPrefix(s, "-") {
		d.neg, s = true, s[1:]
	}
	mant, exp, hasExp := s, "", false
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp, hasExp = s[:i], s[i+1:], true
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" || !allDigits(intPart) || !allDigits(frac) || len(intPart) > 1 && intPart[0] == '0' {
		return decimal{}, false
	}
	if hasExp {
		e, err := strconv.ParseInt(exp, 10, 32)
		if err != nil {
			return decimal{}, false
		}
		d.exp = e
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	d.exp -= int64(len(frac))
	trimmed := strings.TrimRight(digits, "0")
	d.exp += int64(len(digits) - len(trimmed))
	if d.digits = trimmed; d.digits == "" {
		return decimal{}, true
	}
	return d, true
}

// allDigits reports whether s holds ASCII digits alone ("" does).
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// scalarText renders a JSON scalar as the text an XML element would hold.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case string:
		return x, true
	case bool:
		if x {
			return "true", true
		}
		return "false", true
	case json.Number:
		return string(x), true
	case float64:
		b, err := json.Marshal(x)
		return string(b), err == nil
	}
	return "", false
}
