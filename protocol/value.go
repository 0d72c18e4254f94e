package protocol

import (
	"strconv"
	"strings"

	"github.com/seam-dev/seam/internal/jsontext"
	"github.com/tidwall/gjson"
)

// Value is a decoded JSON value: its kind and, for a string, its value, for
// anything else its raw JSON text.
type Value struct {
	s string
	k Kind
}

// Kind is the kind of a Value; the zero value is an absent value.
type Kind uint8

// The kinds are jsontext's, which the decoders read.
const (
	jAbsent = Kind(jsontext.Absent)
	jNull   = Kind(jsontext.Null)
	jBool   = Kind(jsontext.Bool)
	jNumber = Kind(jsontext.Number)
	jString = Kind(jsontext.String)
	jJSON   = Kind(jsontext.Container) // object or array
)

// Exists reports whether the value is present.
func (v Value) Exists() bool { return v.k != jAbsent }

// Exists reports whether a value of this kind is present.
func (k Kind) Exists() bool { return k != jAbsent }

// IsNull reports whether the kind is null.
func (k Kind) IsNull() bool { return k == jNull }

// IsNull reports whether the value is null.
func (v Value) IsNull() bool { return v.k == jNull }

// IsString reports whether the value is a string.
func (v Value) IsString() bool { return v.k == jString }

// IsArray reports whether the value is an array.
func (v Value) IsArray() bool { return v.k == jJSON && v.s[0] == '[' }

// IsObject reports whether the value is an object.
func (v Value) IsObject() bool { return v.k == jJSON && v.s[0] == '{' }

// Str returns the value as gjson's Result.String does: the string, ""
// for null or absent, the raw text otherwise.
func (v Value) Str() string {
	if v.k == jNull {
		return ""
	}
	return v.s
}

// Result returns the value as a gjson.Result, for the rare paths that
// walk into it.
func (v Value) Result() gjson.Result {
	switch v.k {
	case jAbsent:
		return gjson.Result{}
	case jString:
		return gjson.Result{Type: gjson.String, Str: v.s, Raw: strconv.Quote(v.s)}
	}
	return gjson.Parse(v.s)
}

// Shape is the kind of a value whose text is not kept, arrays told apart
// from objects.
type Shape struct {
	k   Kind
	arr bool
}

// Exists reports whether the value is present.
func (t Shape) Exists() bool { return t.k != jAbsent }

// IsNull reports whether the value is null.
func (t Shape) IsNull() bool { return t.k == jNull }

// IsArray reports whether the value is an array.
func (t Shape) IsArray() bool { return t.arr }

// RawJSON is the raw JSON text of a value of a validated payload, "" when the
// value is absent. It is 16 bytes where a gjson.Result is 80, and gives the
// Result (as ForEach yields it, but for Index) when asked.
type RawJSON string

// Result returns the value as a gjson.Result.
func (j RawJSON) Result() gjson.Result {
	if j == "" {
		return gjson.Result{}
	}
	return gjson.Parse(string(j))
}

// Get is Result().Get(path).
func (j RawJSON) Get(path string) gjson.Result { return gjson.Get(string(j), path) }

// String is Result().String().
func (j RawJSON) String() string {
	if j == "" {
		return ""
	}
	if j[0] == '"' && strings.IndexByte(string(j), '\\') < 0 {
		return string(j[1 : len(j)-1])
	}
	return j.Result().String()
}

// Exists is Result().Exists().
func (j RawJSON) Exists() bool { return j != "" }

// IsObject is Result().IsObject().
func (j RawJSON) IsObject() bool { return j != "" && j[0] == '{' }

// JSONValue returns the Value of a JSON text (absent for "" or text that
// is not one JSON value, which is taken as it is).
func JSONValue(raw string) Value {
	raw = strings.TrimSpace(raw)
	switch {
	case raw == "":
		return Value{}
	case raw == "null":
		return Value{k: jNull}
	case raw == "true" || raw == "false":
		return Value{s: raw, k: jBool}
	case raw[0] == '"':
		return Value{s: gjson.Parse(raw).String(), k: jString}
	case raw[0] == '{' || raw[0] == '[':
		return Value{s: raw, k: jJSON}
	}
	return Value{s: raw, k: jNumber}
}
