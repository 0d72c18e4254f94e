package jsontext

import (
	"strconv"

	"github.com/tidwall/gjson"
)

// Value is one value a Scanner read.
type Value struct {
	Kind Kind
	Raw  string // its text
	Str  string // the decoded text of a string
	Off  int    // the offset of Raw in the document
}

// String returns what gjson's Result.String returns for the value.
func (v Value) String() string {
	switch v.Kind {
	case String:
		return v.Str
	case Null, Absent:
		return ""
	case Number:
		if plainInt(v.Raw) {
			return v.Raw
		}
		return v.Result().String()
	}
	return v.Raw
}

// Int returns what gjson's Result.Int returns for the value.
func (v Value) Int() int64 {
	if v.Kind == Number && plainInt(v.Raw) && len(v.Raw) <= 15 {
		n, _ := strconv.ParseInt(v.Raw, 10, 64)
		return n
	}
	return v.Result().Int()
}

// Result returns the value as the gjson.Result ForEach yields for it.
func (v Value) Result() gjson.Result {
	r := gjson.Result{Raw: v.Raw, Index: v.Off}
	switch v.Kind {
	case Absent:
		return gjson.Result{}
	case Null:
		r.Type = gjson.Null
	case Bool:
		r.Type = gjson.False
		if v.Raw[0] == 't' {
			r.Type = gjson.True
		}
	case Number:
		r.Type = gjson.Number
		r.Num, _ = strconv.ParseFloat(v.Raw, 64)
	case String:
		r.Type = gjson.String
		r.Str = v.Str
	default:
		r.Type = gjson.JSON
	}
	return r
}

// plainInt reports whether s is an optional '-' followed by digits only.
func plainInt(s string) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// GetFields sets dst[i] to v.Get(keys[i]) for each plain key (no path
// syntax), in one pass over the object v instead of one per key: the first
// member with a key wins, as with Get. v is a value of a document already
// checked; len(dst) >= len(keys).
func GetFields(v gjson.Result, keys []string, dst []gjson.Result) {
	clear(dst)
	sc := NewScanner(v.Raw)
	if !sc.Open('{') {
		return
	}
	left := len(keys)
	if left == 0 {
		return
	}
	for k := range sc.Members() {
		hit := false
		for i, key := range keys {
			if k == key && dst[i].Type == gjson.Null && dst[i].Raw == "" {
				dst[i] = sc.Value().Result()
				left--
				hit = true
				break
			}
		}
		if !hit {
			sc.Skip()
		}
		if left == 0 {
			return
		}
	}
}
