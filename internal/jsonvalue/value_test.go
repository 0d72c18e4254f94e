package jsonvalue

import (
	"strings"
	"testing"
)

// TestDecodeOneValue: a value with white space around it is one JSON
// value; two values, or a value and bytes that are none, are not (a
// client's JSON.parse fails on them).
func TestDecodeOneValue(t *testing.T) {
	t.Parallel()
	for _, s := range []string{`{"a":1} `, " [1]\n", `"x"`, "1e2"} {
		if _, ok := Decode(s); !ok {
			t.Errorf("Decode(%q) is not one value", s)
		}
	}
	for _, s := range []string{`{"path":"a"}}`, `{"path":"a"} x`, `{"path":"a"}]`, `1 2`, "", "  "} {
		if _, ok := Decode(s); ok {
			t.Errorf("Decode(%q) reads one value", s)
		}
	}
}

// TestEncodeSortsKeys: Encode prints compactly, keys sorted, numbers as
// written, and leaves <, > and & alone.
func TestEncodeSortsKeys(t *testing.T) {
	t.Parallel()
	v, ok := Decode(`{ "b": 1.50, "a": ["<x>&"] }`)
	if !ok {
		t.Fatal("not JSON")
	}
	if got, want := Encode(v), `{"a":["<x>&"],"b":1.50}`; got != want {
		t.Errorf("Encode = %s, want %s", got, want)
	}
}

// TestLooseEqual: loosely, a scalar equals its text (XML carries no
// types) and null equals ""; strictly it does not.
func TestLooseEqual(t *testing.T) {
	t.Parallel()
	a, _ := Decode(`{"n":1,"b":true,"z":null}`)
	b := map[string]any{"n": "1", "b": "true", "z": ""}
	if !Equal(a, b, true) || Equal(a, b, false) {
		t.Errorf("loose %v, strict %v: want true, false", Equal(a, b, true), Equal(a, b, false))
	}
}

// TestJSONNumbersByValue: JSON numbers compare by value, however written,
// and a hostile exponent is compared without building the number (big.Rat
// took 20 ms and 400 KB for each 1e999999).
func TestJSONNumbersByValue(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"1", "1.0", true},
		{"100", "1e2", true},
		{"100", "1E+2", true},
		{"0.001", "1e-3", true},
		{"0.10", "1e-1", true},
		{"120", "12e1", true},
		{"0", "-0.0e5", true},
		{"-1.5", "-15e-1", true},
		{"1e999999", "10e999998", true},
		{"1e-999999", "0.1e-999998", true},
		{"1", "-1", false},
		{"1", "10", false},
		{"0.1", "0.01", false},
		{"1e999999", "1e999998", false},
		{"12", "21", false},
		{"1e2000000000", "1e2000000000", true},
	} {
		va, okA := Decode(tc.a)
		vb, okB := Decode(tc.b)
		if !okA || !okB {
			t.Fatalf("%s, %s: not JSON", tc.a, tc.b)
		}
		if got := Equal(va, vb, false); got != tc.same {
			t.Errorf("Equal(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
	// Thousands of hostile numbers that differ in writing only: big.Rat
	// took minutes over them, this is linear in their text.
	a := "[" + strings.Repeat("1e999999,", 5000) + "1]"
	b := "[" + strings.Repeat("10e999998,", 5000) + "1]"
	if !SameText(a, b) {
		t.Error("arrays of equal hostile numbers compared unequal")
	}
}
