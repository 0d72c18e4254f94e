package query

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/seam-dev/seam/inspect"
)

// Filter is a parsed filter expression, the language of --where and of
// the TUI's filter (FilterHelp documents it): terms separated by spaces,
// all of which must hold.
type Filter struct {
	src   string
	terms []term
}

// term is one condition.
type term struct {
	src   string
	field *fieldDef // nil for a free word
	op    string    // = != : ~ !~ < <= > >=
	// vals are the alternatives of = != and :, lower-cased; globs the
	// compiled globs of = and !=.
	vals  []string
	globs []*regexp.Regexp
	re    *regexp.Regexp
	num   float64
	t     time.Time
}

// ParseFilter parses a filter expression. An empty expression matches
// everything.
func ParseFilter(s string) (*Filter, error) {
	f := &Filter{src: s}
	words, err := splitWords(s)
	if err != nil {
		return nil, err
	}
	for _, w := range words {
		if w.quoted {
			f.terms = append(f.terms, term{src: w.text, vals: []string{strings.ToLower(w.text)}})
			continue
		}
		t, err := parseTerm(w.text)
		if err != nil {
			return nil, err
		}
		f.terms = append(f.terms, t)
	}
	return f, nil
}

// parseTerm reads one unquoted word: a field, an operator and a value, or
// a free word.
func parseTerm(w string) (term, error) {
	t := term{src: w}
	at, op := cutOp(w)
	if at <= 0 {
		t.vals = []string{strings.ToLower(w)}
		return t, nil
	}
	name, val := w[:at], w[at+len(op):]
	fd, ok := lookupField(name)
	if !ok {
		switch op {
		case ":", "<", ">", "<=", ">=":
			// Text with a colon or an angle bracket in it (a URL, XML).
			t.vals = []string{strings.ToLower(w)}
			return t, nil
		}
		return t, fmt.Errorf("filter term %q: unknown field %q (fields: %s; see seam help where)", w, name, fieldNames())
	}
	t.field, t.op = fd, op
	if err := t.parseValue(val); err != nil {
		return t, fmt.Errorf("filter term %q: %s", w, err)
	}
	return t, nil
}

// parseValue reads the value of a term whose field and operator are set,
// and says what was wanted when it does not fit them.
func (t *term) parseValue(val string) error {
	fd, op := t.field, t.op
	if val == "" && op != "=" && op != "!=" {
		return fmt.Errorf("no value after %s", op)
	}
	switch op {
	case "~", "!~":
		if fd.kind != kString {
			return fmt.Errorf("%s is not text: compare it with = != < <= > >=", fd.name)
		}
		re, err := regexp.Compile("(?i)" + val)
		if err != nil {
			return fmt.Errorf("bad regular expression: %s", err)
		}
		t.re = re
		return nil
	case "<", "<=", ">", ">=":
		if fd.kind == kString {
			return fmt.Errorf("%s is text: use = != : ~ !~", fd.name)
		}
	}
	switch fd.kind {
	case kString:
		t.parseStrings(val)
	case kNumber:
		return t.parseNumber(val)
	case kDuration:
		d, err := time.ParseDuration(val)
		if err != nil && val != "0" {
			return fmt.Errorf("want a duration such as 300ms or 2s after %s", op)
		}
		t.num = float64(d)
	case kSeverity:
		if op == ":" {
			t.op = ">=" // the TUI's sev:warn, any finding at warn or above
		}
		sev, err := inspect.ParseSeverity(val)
		if err != nil {
			return err
		}
		t.num = float64(sev)
	case kTime:
		tm, err := parseWhen(val)
		if err != nil {
			return fmt.Errorf("want a date (2026-11-22) or an RFC 3339 time (2026-11-22T09:00:00Z)")
		}
		t.t = tm
	}
	return nil
}

// parseStrings reads the comma-separated alternatives of a text term.
func (t *term) parseStrings(val string) {
	for _, v := range strings.Split(val, ",") {
		v = strings.ToLower(v)
		t.vals = append(t.vals, v)
		if t.op != ":" {
			t.globs = append(t.globs, globRegexp(v))
		}
	}
}

// parseNumber reads the value of a numeric term.
func (t *term) parseNumber(val string) error {
	n, err := strconv.ParseFloat(val, 64)
	if err != nil {
		return fmt.Errorf("want a number after %s", t.op)
	}
	t.num = n
	if t.op == ":" {
		t.vals = []string{val} // status:5 is any 5xx
	}
	return nil
}

// parseWhen reads a date or a time, in UTC unless it says otherwise.
func parseWhen(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("bad time %q", s)
}

// globRegexp compiles a glob (* any run, ? one character) matching a whole
// lower-cased value.
func globRegexp(g string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("(?s)^")
	for _, r := range g {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}
