package inspect

import (
	"bytes"
	"encoding/json"
	"io"
	"math/big"
	"strings"

	"github.com/seam-dev/seam/internal/jsontext"
)

// sameJSONText reports whether two JSON texts say the same: equal as
// strings or, when both are one JSON value, as values (jsonEqual: key
// order, spacing and how a number is written do not matter).
func sameJSONText(a, b string) bool {
	if a == b {
		return true
	}
	va, okA := decodeJSON(a)
	vb, okB := decodeJSON(b)
	return okA && okB && jsonEqual(va, vb, false)
}

// encodeJSON renders a decoded JSON value compactly, object keys sorted
// and <, > and & as they are (they are evidence and arguments, not HTML);
// "" when v is not one.
func encodeJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// marshalArgs renders parsed XML arguments as JSON with sorted keys.
func marshalArgs(args map[string]any) string {
	if s := encodeJSON(args); s != "" {
		return s
	}
	return "{}"
}

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
	if _, err := dec.Token(); err != io.EOF {
		return nil, false // more than one value, or bytes that are none
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
	if x, ok := a.(json.Number); ok {
		if y, ok := b.(json.Number); ok {
			if same, ok := jsontext.SameNumber(string(x), string(y)); ok {
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
