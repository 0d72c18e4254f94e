package query

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// String returns the expression as given.
func (f *Filter) String() string { return f.src }

// Empty reports whether the filter has no term (it matches everything).
func (f *Filter) Empty() bool { return f == nil || len(f.terms) == 0 }

// NeedsText reports whether a term reads the searchable text (a free word
// or a text term), which costs a search per exchange.
func (f *Filter) NeedsText() bool {
	if f == nil {
		return false
	}
	return slices.ContainsFunc(f.terms, func(t term) bool { return t.field == nil || t.field.name == "text" })
}

// Uses reports whether a term reads one of the named fields.
func (f *Filter) Uses(names ...string) bool {
	if f == nil {
		return false
	}
	return slices.ContainsFunc(f.terms, func(t term) bool { return t.field != nil && slices.Contains(names, t.field.name) })
}

// Match reports whether r satisfies every term.
func (f *Filter) Match(r *Row) bool {
	if f == nil {
		return true
	}
	var text *string
	haystack := func() string {
		if text == nil {
			s := ""
			if r.Text != nil {
				s = strings.ToLower(r.Text())
			}
			text = &s
		}
		return *text
	}
	for i := range f.terms {
		if !f.terms[i].match(r, haystack) {
			return false
		}
	}
	return true
}

// match reports whether r satisfies the term; haystack returns r's
// searchable text, lower-cased.
func (t *term) match(r *Row, haystack func() string) bool {
	if t.field == nil {
		return strings.Contains(rowWords(r), t.vals[0]) || strings.Contains(haystack(), t.vals[0])
	}
	switch t.field.kind {
	case kString:
		vals, known := r.strings(t.field.name, haystack)
		if !known {
			return t.op == "!=" || t.op == "!~"
		}
		any := slices.ContainsFunc(vals, t.matchString)
		if t.op == "!=" || t.op == "!~" {
			return !any
		}
		return any
	case kTime:
		if r.Time.IsZero() {
			return t.op == "!="
		}
		return compare(t.op, float64(r.Time.UnixNano()), float64(t.t.UnixNano()))
	}
	v, known := r.number(t.field.name)
	if !known {
		return t.op == "!="
	}
	if t.field.kind == kNumber && t.op == ":" {
		return strings.HasPrefix(strconv.FormatFloat(v, 'f', -1, 64), t.vals[0])
	}
	return compare(t.op, v, t.num)
}

// matchString matches one value of a text field (positive form).
func (t *term) matchString(v string) bool {
	v = strings.ToLower(v)
	switch t.op {
	case "~", "!~":
		return t.re.MatchString(v)
	case ":":
		return slices.ContainsFunc(t.vals, func(s string) bool { return strings.Contains(v, s) })
	}
	if t.field.name == "capture" {
		base := strings.ToLower(filepath.Base(v))
		return slices.ContainsFunc(t.globs, func(g *regexp.Regexp) bool { return g.MatchString(v) || g.MatchString(base) })
	}
	return slices.ContainsFunc(t.globs, func(g *regexp.Regexp) bool { return g.MatchString(v) })
}

// compare applies a comparison operator to two numbers.
func compare(op string, a, b float64) bool {
	switch op {
	case "=", ":":
		return a == b
	case "!=":
		return a != b
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	case ">=":
		return a >= b
	}
	return false
}
