package inspect

import (
	"encoding/json"
	"math/big"
	"strings"
)

// decodeJSON decodes one JSON value, numbers kept as written
// (json.Number), and reports whether s is exactly one valid value.
func decodeJSON(s string) (any, bool) {
	if strings.TrimSpace(s) == "" {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false // more than one value
	}
	return v, true
}

// jsonEqual compares two decoded JSON values: numbers by value (1.0 equals
// 1), objects regardless of key order. loose compares scalars by their
// text and null as "", as for a value read out of XML, which carries no
// types.
func jsonEqual(a, b any, loose bool) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !jsonEqual(v, w, loose) {
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
			if !jsonEqual(x[i], y[i], loose) {
				return false
			}
		}
		return true
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
