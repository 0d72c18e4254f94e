package query

import (
	"regexp"
	"strings"
	"testing"

	"github.com/seam-dev/seam/fixtures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/tape"
)

// TestSearchIncident: searching the incident capture for the corrupted
// closer finds it in the client's assembled text at the event that
// completed it (the one inspect's finding names), and not upstream.
func TestSearchIncident(t *testing.T) {
	c, err := fixtures.Load(fixtures.Incident)
	if err != nil {
		t.Fatal(err)
	}
	rep := inspect.Inspect(c, inspect.Options{NoDiffs: true})
	x := rep.Exchanges[0]
	var want inspect.Finding
	for _, f := range x.Findings {
		if f.ID == "xml.unclosed-closer" {
			want = f
		}
	}
	ms := Search(regexp.MustCompile(regexp.QuoteMeta("</use_tool<use_tool>")), c.Exchanges[0], x, nil)
	if len(ms) != 1 {
		t.Fatalf("%d matches, want 1: %+v", len(ms), ms)
	}
	m := ms[0]
	if m.Scope != ScopeText || m.Side != tape.Client || m.Where != "text" || m.Hit != "</use_tool<use_tool>" {
		t.Errorf("match %+v", m)
	}
	// The match's first byte was added by an event at or before the one
	// whose delta completed the corrupted closer.
	if m.Event < 0 || m.Event > want.Pointer.Event || m.Event < want.Pointer.Event-5 {
		t.Errorf("match at event %d, the finding at %d", m.Event, want.Pointer.Event)
	}
	if !strings.Contains(SearchText(c.Exchanges[0], x), "</use_tool<use_tool>") {
		t.Error("SearchText lacks the client text")
	}
}

// TestSearchScopes: tool names and arguments, request messages and
// headers are searched, each match naming its place; scopes narrow it.
func TestSearchScopes(t *testing.T) {
	req := `{"model":"m-chat","stream":true,"messages":[{"role":"system","content":"You are a coding agent. Use the tools."},` +
		`{"role":"user","content":"please read the config"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"f1.go\"}"}}]},` +
		`{"role":"tool","tool_call_id":"call_1","content":"package f1"}]}`
	x := chatExchange(2, req, nil, toolCallEvents("m-chat", `{"path":"f2.go"}`, 200, 20)...)
	x.Request.Headers = tape.Headers{"user-agent": {"agent/1.0 (config reader)"}}
	rep := inspect.Inspect(capture("s.ndjson", x), inspect.Options{AssembleOnly: true}).Exchanges[0]
	ms := Search(regexp.MustCompile(`(?i)config|f[12]\.go`), x, rep, nil)
	var got []string
	for _, m := range ms {
		got = append(got, string(m.Scope)+"|"+string(m.Side)+"|"+m.Where+"|"+m.Before+"["+m.Hit+"]"+m.After)
	}
	want := []string{
		`tools|upstream|tool 0 read_file arguments|{"path":"[f2.go]"}`,
		`request||message 1 (user)|please read the [config]`,
		`request||message 2 (assistant) tool call|read_file {"path":"[f1.go]"}`,
		`headers||header user-agent|user-agent: agent/1.0 ([config] reader)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("matches:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if ms := Search(regexp.MustCompile(`config`), x, rep, []Scope{ScopeHeaders}); len(ms) != 1 || ms[0].Scope != ScopeHeaders {
		t.Errorf("headers only: %+v", ms)
	}
	if _, err := ParseScopes("text,body"); err == nil || !strings.Contains(err.Error(), `unknown scope "body"`) {
		t.Errorf("bad scope: %v", err)
	}
}

// TestAround: context stops at line breaks and rune boundaries; a long hit
// is cut in its middle.
func TestAround(t *testing.T) {
	s := "line one\nsome text é before HIT after é more\nnext"
	i := strings.Index(s, "HIT")
	b, h, a := around(s, i, i+3, 12)
	if b != "t é before " || h != "HIT" || a != " after é mo" {
		t.Errorf("%q %q %q", b, h, a)
	}
	long := strings.Repeat("x", 100)
	if _, h, _ := around(long, 0, 100, 10); h != strings.Repeat("x", 20)+"…"+strings.Repeat("x", 20) {
		t.Errorf("long hit %q", h)
	}
}

// TestCompilePattern: a regular expression, a fixed string whose
// metacharacters match themselves, and either in any case.
func TestCompilePattern(t *testing.T) {
	for _, c := range []struct {
		pattern           string
		fixed, ignoreCase bool
		in                string
		want              bool
	}{
		{"use_tool<", false, false, "a use_tool<", true},
		{"a.c", false, false, "abc", true},
		{"a.c", true, false, "abc", false},
		{"a.c", true, false, "xa.cx", true},
		{"USE_TOOL", false, true, "use_tool", true},
		{"A(B", true, true, "a(b", true},
	} {
		re, err := CompilePattern(c.pattern, c.fixed, c.ignoreCase)
		if err != nil {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		if got := re.MatchString(c.in); got != c.want {
			t.Errorf("%q (fixed %v, -i %v) on %q: %v", c.pattern, c.fixed, c.ignoreCase, c.in, got)
		}
	}
	if _, err := CompilePattern("a(b", false, false); err == nil {
		t.Error("an unbalanced regular expression compiled")
	}
}
