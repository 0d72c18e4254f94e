package inspect

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seam-dev/seam/tape"
)

// Row is what a Filter reads of one exchange. Callers fill what they know:
// the CLI from an inspected exchange (RowOf), the TUI from its index and
// the background inspection. Durations are nanoseconds, -1 when unknown.
type Row struct {
	Capture  string
	Ex       int
	Method   string
	URL      string
	Endpoint string
	Host     string
	Model    string
	Protocol string
	Status   int
	Outcome  tape.Outcome
	// Time is when the request was sent, zero when unknown.
	Time    time.Time
	TTFB    int64
	Dur     int64
	Events  int
	Metrics *Metrics
	Session string
	Turn    int
	// Findings are the finding ids and Worst the most serious severity;
	// Inspected is false while they are not known (nothing matches a
	// finding or severity term then).
	Findings  []string
	Worst     Severity
	Inspected bool
	// Tools names the tool calls of the side clients received.
	Tools []string
	// Text returns the exchange's searchable text (SearchText), for text
	// terms and free words; nil when not known.
	Text func() string
}

// RowOf returns the Row of an inspected exchange of the capture named
// capture, which started at started (zero when unknown); text, when set,
// gives its searchable text.
func RowOf(capture string, started time.Time, reqT int64, x *ExchangeReport, text func() string) *Row {
	r := &Row{Capture: capture, Ex: x.Ex, Method: x.Method, URL: x.URL, Endpoint: x.Endpoint, Model: x.Model,
		Protocol: string(x.Protocol), Status: x.Status, Outcome: x.Outcome, TTFB: x.TTFB, Dur: x.Dur, Events: x.Events,
		Metrics: x.Metrics, Inspected: true, Text: text}
	if x.Origin != "" {
		_, r.Host, _ = strings.Cut(x.Origin, "://")
	}
	if !started.IsZero() {
		r.Time = started.Add(time.Duration(reqT))
	}
	if x.Session != nil {
		r.Session, r.Turn = x.Session.ID, x.Session.Turn
	}
	for i, f := range x.Findings {
		r.Findings = append(r.Findings, f.ID)
		if i == 0 || f.Severity > r.Worst {
			r.Worst = f.Severity
		}
	}
	for _, s := range x.Sides {
		if s.Side == tape.Client || len(x.Sides) == 1 {
			for _, ch := range s.Message.Choices {
				for _, tc := range ch.ToolCalls {
					r.Tools = append(r.Tools, tc.Name)
				}
			}
		}
	}
	return r
}

// Filter is a parsed filter expression, the language of --where and of
// the TUI's filter (FilterHelp documents it): terms separated by spaces,
// all of which must hold.
type Filter struct {
	src   string
	terms []term
}

// fieldKind is how a field's values compare.
type fieldKind int

const (
	kString   fieldKind = iota // globs, contains, regexps
	kNumber                    // numbers
	kDuration                  // durations such as 300ms
	kSeverity                  // info < warn < error
	kTime                      // a date or an RFC 3339 time
)

// fieldDef is one field of the language.
type fieldDef struct {
	name    string
	aliases []string
	kind    fieldKind
	help    string
}

// fieldDefs lists the fields in the order FilterHelp documents them.
var fieldDefs = []fieldDef{
	{"model", []string{"m"}, kString, "the model the request asked for (else the one the response names)"},
	{"endpoint", []string{"ep", "path"}, kString, "the request path, e.g. /v1/chat/completions"},
	{"url", nil, kString, "the request path and query"},
	{"method", nil, kString, "GET, POST, ..."},
	{"host", nil, kString, "the host a forward-proxy recording names"},
	{"protocol", []string{"proto"}, kString, "openai-chat, openai-responses, anthropic, ..."},
	{"status", nil, kNumber, "the HTTP status clients got"},
	{"outcome", []string{"o"}, kString, "complete, client_closed_after_done, client_aborted, upstream_error, truncated, timeout, recorder_shutdown, recorder_error; ok and fail stand for any success or failure"},
	{"finding", []string{"id", "detector"}, kString, "a finding's id, e.g. finding=diff.* (true when any finding matches; != when none does)"},
	{"severity", []string{"sev"}, kSeverity, "the most serious finding: info, warn or error (sev>=warn)"},
	{"tool", nil, kString, "the name of a tool call clients got"},
	{"text", []string{"body"}, kString, "the searchable text: assembled text, tool calls, request messages, headers"},
	{"capture", []string{"file"}, kString, "the capture's path (globs match the file name too)"},
	{"ex", nil, kNumber, "the exchange number"},
	{"session", nil, kString, "the session id"},
	{"turn", nil, kNumber, "the turn in its session"},
	{"ttfb", nil, kDuration, "time to first byte, e.g. ttfb>500ms"},
	{"duration", []string{"dur"}, kDuration, "request to end of response"},
	{"gap.p50", []string{"gap_p50"}, kDuration, "median gap between chunks"},
	{"gap.p99", []string{"gap_p99"}, kDuration, "99th percentile gap between chunks"},
	{"gap.max", []string{"gap_max", "gap"}, kDuration, "largest gap between chunks"},
	{"stalls", nil, kNumber, "gaps over the stall threshold (--stall)"},
	{"events", nil, kNumber, "events on the side clients got"},
	{"tokens.in", []string{"tokens_in", "in"}, kNumber, "input tokens the usage reports"},
	{"tokens.out", []string{"tokens_out", "out"}, kNumber, "output tokens the usage reports"},
	{"tps", []string{"tokens/s"}, kNumber, "output tokens per second"},
	{"time", nil, kTime, "when the request was sent: time>=2026-11-22T09:00:00Z, or a date"},
	{"day", []string{"date"}, kString, "the request's UTC day, 2026-11-22"},
}

// lookupField finds a field by name or alias, case-insensitively.
func lookupField(name string) (*fieldDef, bool) {
	name = strings.ToLower(name)
	for i := range fieldDefs {
		if fieldDefs[i].name == name || slices.Contains(fieldDefs[i].aliases, name) {
			return &fieldDefs[i], true
		}
	}
	return nil, false
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

// ops lists the operators, longest first so "!=" is not read as "!".
var ops = []string{"!=", "!~", "<=", ">=", "=", "~", "<", ">", ":"}

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

// word is one word of a filter; quoted when it starts with a quote (a
// free word whatever it holds).
type word struct {
	text   string
	quoted bool
}

// splitWords splits s at spaces outside double quotes, removing the
// quotes (a backslash escapes a quote or a backslash inside them).
func splitWords(s string) ([]word, error) {
	var words []word
	var b strings.Builder
	in, have, quoted := false, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in && c == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
			i++
			b.WriteByte(s[i])
		case c == '"':
			if !have {
				quoted = true
			}
			in, have = !in, true
		case !in && (c == ' ' || c == '\t' || c == '\n'):
			if have {
				words = append(words, word{b.String(), quoted})
				b.Reset()
				have, quoted = false, false
			}
		default:
			b.WriteByte(c)
			have = true
		}
	}
	if in {
		return nil, fmt.Errorf("filter %q: a quote is not closed", s)
	}
	if have {
		words = append(words, word{b.String(), quoted})
	}
	return words, nil
}

func parseTerm(w string) (term, error) {
	t := term{src: w}
	at, op := -1, ""
	for i := 0; i < len(w) && at < 0; i++ {
		for _, o := range ops {
			if strings.HasPrefix(w[i:], o) {
				at, op = i, o
				break
			}
		}
	}
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
	bad := func(want string) (term, error) {
		return t, fmt.Errorf("filter term %q: %s", w, want)
	}
	if val == "" && op != "=" && op != "!=" {
		return bad("no value after " + op)
	}
	switch op {
	case "~", "!~":
		if fd.kind != kString {
			return bad(fd.name + " is not text: compare it with = != < <= > >=")
		}
		re, err := regexp.Compile("(?i)" + val)
		if err != nil {
			return bad("bad regular expression: " + err.Error())
		}
		t.re = re
		return t, nil
	case "<", "<=", ">", ">=":
		if fd.kind == kString {
			return bad(fd.name + " is text: use = != : ~ !~")
		}
	}
	switch fd.kind {
	case kString:
		for _, v := range strings.Split(val, ",") {
			v = strings.ToLower(v)
			t.vals = append(t.vals, v)
			if op != ":" {
				t.globs = append(t.globs, globRegexp(v))
			}
		}
	case kNumber:
		n, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return bad("want a number after " + op)
		}
		t.num = n
		if op == ":" {
			t.vals = []string{val} // status:5 is any 5xx
		}
	case kDuration:
		d, err := time.ParseDuration(val)
		if err != nil && val != "0" {
			return bad("want a duration such as 300ms or 2s after " + op)
		}
		t.num = float64(d)
	case kSeverity:
		if op == ":" {
			t.op = ">=" // the TUI's sev:warn, any finding at warn or above
		}
		sev, err := ParseSeverity(val)
		if err != nil {
			return bad(err.Error())
		}
		t.num = float64(sev)
	case kTime:
		tm, err := parseWhen(val)
		if err != nil {
			return bad("want a date (2026-11-22) or an RFC 3339 time (2026-11-22T09:00:00Z)")
		}
		t.t = tm
	}
	return t, nil
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

func fieldNames() string {
	names := make([]string, len(fieldDefs))
	for i, f := range fieldDefs {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}

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

// strings returns the values of a text field, and false when the row does
// not know them.
func (r *Row) strings(name string, haystack func() string) ([]string, bool) {
	one := func(s string) ([]string, bool) { return []string{s}, true }
	switch name {
	case "model":
		return one(r.Model)
	case "endpoint":
		return one(r.Endpoint)
	case "url":
		return one(r.URL)
	case "method":
		return one(r.Method)
	case "host":
		return one(r.Host)
	case "protocol":
		return one(r.Protocol)
	case "outcome":
		if r.Outcome == "" {
			return one("")
		}
		if r.Outcome.Success() {
			return []string{string(r.Outcome), "ok"}, true
		}
		return []string{string(r.Outcome), "fail"}, true
	case "finding":
		return r.Findings, r.Inspected
	case "tool":
		return r.Tools, r.Inspected
	case "text":
		return one(haystack())
	case "capture":
		return one(r.Capture)
	case "session":
		return one(r.Session)
	case "day":
		if r.Time.IsZero() {
			return nil, false
		}
		return one(r.Time.UTC().Format("2006-01-02"))
	}
	return nil, false
}

// number returns the value of a numeric field, and false when the row
// does not know it.
func (r *Row) number(name string) (float64, bool) {
	dur := func(ns int64) (float64, bool) { return float64(ns), ns >= 0 }
	m := r.Metrics
	switch name {
	case "status":
		return float64(r.Status), r.Status > 0
	case "ex":
		return float64(r.Ex), true
	case "turn":
		return float64(r.Turn), r.Turn > 0
	case "severity":
		if len(r.Findings) == 0 {
			return -1, r.Inspected // below info: no finding at all
		}
		return float64(r.Worst), true
	case "ttfb":
		return dur(r.TTFB)
	case "duration":
		return dur(r.Dur)
	case "events":
		return float64(r.Events), r.Inspected
	}
	if m == nil {
		return math.NaN(), false
	}
	switch name {
	case "gap.p50":
		return float64(m.GapP50), m.Gaps > 0
	case "gap.p99":
		return float64(m.GapP99), m.Gaps > 0
	case "gap.max":
		return float64(m.GapMax), m.Gaps > 0
	case "stalls":
		return float64(m.Stalls), true
	case "tokens.in":
		return float64(m.TokensIn), m.TokensIn > 0 || m.TokensOut > 0
	case "tokens.out":
		return float64(m.TokensOut), m.TokensIn > 0 || m.TokensOut > 0
	case "tps":
		return m.TokensPerS, m.TokensPerS > 0
	}
	return math.NaN(), false
}

// rowWords is the text of a row's columns a free word also matches: its
// capture, number, method, URL, model, status, outcome, session and
// finding ids, lower-cased.
func rowWords(r *Row) string {
	return strings.ToLower(strings.Join([]string{
		filepath.Base(r.Capture), strconv.Itoa(r.Ex), r.Method, r.URL, r.Model, strconv.Itoa(r.Status),
		string(r.Outcome), r.Session, strings.Join(r.Findings, " "),
	}, " "))
}

// FilterHelp documents the filter language, for "seam help where".
func FilterHelp() string {
	var b strings.Builder
	b.WriteString(`A filter selects exchanges. It is a list of terms separated by spaces;
an exchange must satisfy every term. The same language serves --where on
inspect, stats, grep and export, and the TUI's filter (f).

  field=value       equals (case-insensitive); * and ? are globs, and a
                    comma gives alternatives: model=gpt-5*,claude-*
  field!=value      none of the values
  field:value       contains: endpoint:chat (for numbers, starts with:
                    status:5 is any 5xx)
  field~regexp      matches the regular expression (RE2, case-insensitive)
  field!~regexp     does not match it
  field<N  <=  >  >=  for numbers, durations (300ms, 2s), severities and times
  word              any other word: the exchange's columns or its text
                    contain it (case-insensitive)

Put a value with spaces in double quotes: text="tool call"; a word that
starts with a quote is always a free word: "</use_tool<use_tool>". A field a
filter cannot know for an exchange (its ttfb before the first byte, its
findings before it is inspected) satisfies only != and !~.

Fields:
`)
	for _, f := range fieldDefs {
		name := f.name
		if len(f.aliases) > 0 {
			name += " (" + strings.Join(f.aliases, ", ") + ")"
		}
		fmt.Fprintf(&b, "  %-28s %s\n", name, f.help)
	}
	b.WriteString(`
Examples:
  model=gpt-5 outcome!=complete finding=diff.*
  stalls>0 day=2026-11-22
  gap.max>2s endpoint:/v1/messages
  sev>=warn tool=read_file
  finding=session.* session=s1a2b3c4d
`)
	return b.String()
}
