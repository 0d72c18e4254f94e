package query

import (
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
)

// Scope is a part of an exchange a search looks in.
type Scope string

// The scopes, in the order a search reports them.
const (
	// ScopeText is each side's assembled text, reasoning and refusal.
	ScopeText Scope = "text"
	// ScopeTools is each side's tool call names and arguments.
	ScopeTools Scope = "tools"
	// ScopeRequest is the request's messages (text, tool calls, results).
	ScopeRequest Scope = "request"
	// ScopeHeaders is the request's and the responses' headers.
	ScopeHeaders Scope = "headers"
)

// CompilePattern compiles seam grep's PATTERN: a regular expression (RE2
// syntax), or with fixed a string matched as it is; with ignoreCase, in
// any case.
func CompilePattern(pattern string, fixed, ignoreCase bool) (*regexp.Regexp, error) {
	if fixed {
		pattern = regexp.QuoteMeta(pattern)
	}
	if ignoreCase {
		pattern = "(?i)" + pattern
	}
	return regexp.Compile(pattern)
}

// Scopes lists every scope.
func Scopes() []Scope { return []Scope{ScopeText, ScopeTools, ScopeRequest, ScopeHeaders} }

// ParseScopes reads a comma-separated list of scopes.
func ParseScopes(s string) ([]Scope, error) {
	var out []Scope
	for _, name := range strings.Split(s, ",") {
		sc := Scope(strings.TrimSpace(name))
		if !slices.Contains(Scopes(), sc) {
			return nil, &scopeError{name}
		}
		out = append(out, sc)
	}
	return out, nil
}

type scopeError struct{ name string }

func (e *scopeError) Error() string {
	return "unknown scope " + strconv.Quote(e.name) + " (scopes: text, tools, request, headers)"
}

// Match is one place a search found its pattern.
type Match struct {
	Ex    int   `json:"ex"`
	Scope Scope `json:"scope"`
	// Side is the response side for text, tools and response headers;
	// empty for the request.
	Side tape.Side `json:"side,omitempty"`
	// Where names the place: "text", "tool 0 read_file arguments",
	// "message 3 (tool)", "header user-agent".
	Where string `json:"where"`
	// Event is the event that added the matched text's first byte, -1
	// when the place is not a stream's text.
	Event int `json:"event"`
	// Off is the match's byte offset in the place's text.
	Off int `json:"off"`
	// Before, Hit and After are the matched bytes and up to 40 bytes of
	// context each way (cut at line breaks), as found: unescaped.
	Before string `json:"before"`
	Hit    string `json:"hit"`
	After  string `json:"after"`
}

// place is one searchable text of an exchange.
type place struct {
	scope Scope
	side  tape.Side
	where string
	text  string
	// spans map text offsets to events (assembled text only).
	spans []protocol.Span
	// label, when set, makes where from name and n only for a place that
	// matches: a request's messages and headers are most of the places,
	// and few match.
	label placeLabel
	name  string
	n     int
}

// placeLabel is how a place's where is made when it matches.
type placeLabel uint8

const (
	labelWhere       placeLabel = iota // where as it is
	labelMessage                       // "message N (role)"
	labelMessageCall                   // "message N (role) tool call"
	labelHeader                        // "header name"
)

// whereText is what a match in p says of where it is.
func (p *place) whereText() string {
	switch p.label {
	case labelMessage, labelMessageCall:
		w := "message " + strconv.Itoa(p.n) + " (" + excerpt.Name(p.name) + ")"
		if p.label == labelMessageCall {
			w += " tool call"
		}
		return w
	case labelHeader:
		return "header " + excerpt.Name(p.name)
	}
	return p.where
}

// places lists the searchable texts of an inspected exchange in the order
// of the scopes: the assembled text and tool calls of the side clients got
// and of the other side when it differs, the request's messages, then the
// headers.
func places(x *tape.Exchange, rep *inspect.ExchangeReport, want []Scope) []place {
	in := func(s Scope) bool { return len(want) == 0 || slices.Contains(want, s) }
	var out []place
	if in(ScopeText) || in(ScopeTools) {
		out = messagePlaces(out, rep, in(ScopeText), in(ScopeTools))
	}
	if in(ScopeRequest) {
		out = requestPlaces(out, x, rep)
	}
	if in(ScopeHeaders) {
		out = headerPlaces(out, x)
	}
	return out
}

// messagePlaces appends the texts (when text is set) and the tool calls
// (when tools is) of each choice of the side clients received, then of
// each choice of the other side that says something else.
func messagePlaces(out []place, rep *inspect.ExchangeReport, text, tools bool) []place {
	sides := slices.Clone(rep.Sides)
	// The side clients received first; the other only where it differs.
	slices.SortStableFunc(sides, func(a, b *inspect.SideReport) int {
		if a.Side == b.Side {
			return 0
		}
		if a.Side == tape.Client {
			return -1
		}
		return 1
	})
	var seen []protocol.Choice
	for _, s := range sides {
		if s.Message == nil {
			continue
		}
		for _, ch := range s.Message.Choices {
			prefix := ""
			if len(s.Message.Choices) > 1 {
				prefix = "choice " + strconv.Itoa(ch.Index) + " "
			}
			dup := slices.ContainsFunc(seen, func(o protocol.Choice) bool {
				return o.Index == ch.Index && o.Text == ch.Text && o.Reasoning == ch.Reasoning && o.Refusal == ch.Refusal &&
					protocol.SameToolCalls(o.ToolCalls, ch.ToolCalls)
			})
			seen = append(seen, ch)
			if dup {
				continue
			}
			if text {
				out = textPlaces(out, s.Side, prefix, ch)
			}
			if tools {
				for _, tc := range ch.ToolCalls {
					w := prefix + "tool " + strconv.Itoa(tc.Index) + " "
					out = append(out, place{scope: ScopeTools, side: s.Side, where: w + "name", text: tc.Name},
						place{scope: ScopeTools, side: s.Side, where: w + excerpt.Name(tc.Name) + " arguments", text: tc.Arguments})
				}
			}
		}
	}
	return out
}

// textPlaces appends a choice's text, with the spans that map it to
// events, and its reasoning and refusal when it has them.
func textPlaces(out []place, side tape.Side, prefix string, ch protocol.Choice) []place {
	out = append(out, place{scope: ScopeText, side: side, where: prefix + "text", text: ch.Text, spans: ch.Spans})
	if ch.Reasoning != "" {
		out = append(out, place{scope: ScopeText, side: side, where: prefix + "reasoning", text: ch.Reasoning})
	}
	if ch.Refusal != "" {
		out = append(out, place{scope: ScopeText, side: side, where: prefix + "refusal", text: ch.Refusal})
	}
	return out
}

// requestPlaces appends the text and the tool calls of each message of
// the request.
func requestPlaces(out []place, x *tape.Exchange, rep *inspect.ExchangeReport) []place {
	for i, m := range inspect.RequestMessages(x, rep) {
		if m.Text != "" {
			out = append(out, place{scope: ScopeRequest, text: m.Text, label: labelMessage, name: m.Role, n: i})
		}
		for _, tc := range m.ToolCalls {
			out = append(out, place{scope: ScopeRequest, text: tc.Name + " " + tc.Arguments, label: labelMessageCall, name: m.Role, n: i})
		}
	}
	return out
}

// headerPlaces appends the request's headers, then the upstream's and the
// client's response headers, each "name: value", names in order.
func headerPlaces(out []place, x *tape.Exchange) []place {
	header := func(side tape.Side, h tape.Headers) {
		for _, k := range slices.Sorted(maps.Keys(h)) {
			for _, v := range h[k] {
				out = append(out, place{scope: ScopeHeaders, side: side, text: k + ": " + v, label: labelHeader, name: k})
			}
		}
	}
	if x.Request != nil {
		header("", x.Request.Headers)
	}
	for _, s := range []tape.Side{tape.Upstream, tape.Client} {
		if r := x.Side(s).Response; r != nil {
			header(s, r.Headers)
		}
	}
	return out
}

// SearchText returns everything a search looks in, joined by line breaks:
// the haystack of a filter's text terms and free words.
func SearchText(x *tape.Exchange, rep *inspect.ExchangeReport) string {
	var b strings.Builder
	for _, p := range places(x, rep, nil) {
		b.WriteString(p.text)
		b.WriteByte('\n')
	}
	return b.String()
}

// maxMatches bounds the matches reported per place (a pattern such as "e"
// would otherwise list every letter of a long text).
const maxMatches = 20

// Search returns where re matches in the scopes of an inspected exchange
// (all of them when scopes is empty), at most 20 matches per place.
func Search(re *regexp.Regexp, x *tape.Exchange, rep *inspect.ExchangeReport, scopes []Scope) []Match {
	var out []Match
	for _, p := range places(x, rep, scopes) {
		for _, loc := range re.FindAllStringIndex(p.text, maxMatches) {
			if loc[1] == loc[0] {
				continue // an empty match shows nothing
			}
			m := Match{Ex: rep.Ex, Scope: p.scope, Side: p.side, Where: p.whereText(), Event: -1, Off: loc[0]}
			if p.spans != nil {
				m.Event = protocol.EventAt(p.spans, loc[0])
			}
			m.Before, m.Hit, m.After = around(p.text, loc[0], loc[1], 40)
			out = append(out, m)
		}
	}
	return out
}

// around cuts the match s[i:j] and up to n bytes each side of it, each
// side stopping at a line break and on a rune boundary; a match longer
// than 4n is cut in its middle.
func around(s string, i, j, n int) (before, hit, after string) {
	a := max(i-n, 0)
	for a < i && !utf8.RuneStart(s[a]) {
		a++
	}
	if k := strings.LastIndexByte(s[a:i], '\n'); k >= 0 {
		a += k + 1
	}
	b := min(j+n, len(s))
	for b > j && b < len(s) && !utf8.RuneStart(s[b]) {
		b--
	}
	if k := strings.IndexByte(s[j:b], '\n'); k >= 0 {
		b = j + k
	}
	hit = s[i:j]
	if len(hit) > 4*n {
		h, t := 2*n, len(hit)-2*n
		for h > 0 && !utf8.RuneStart(hit[h]) {
			h--
		}
		for t < len(hit) && !utf8.RuneStart(hit[t]) {
			t++
		}
		hit = hit[:h] + "…" + hit[t:]
	}
	return s[a:i], hit, s[j:b]
}
