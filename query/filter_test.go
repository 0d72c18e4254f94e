package query

import (
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/timing"
)

// TestFilter: each form of term on rows whose answer is known.
func TestFilter(t *testing.T) {
	when := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	row := &Row{Capture: "captures/seam-1.ndjson", Ex: 3, Method: "POST", URL: "/v1/chat/completions?x=1", Endpoint: "/v1/chat/completions",
		Model: "gpt-5-2025-08-07", Protocol: "openai-chat", Status: 200, Outcome: tape.ClientAborted, Time: when,
		TTFB: int64(400 * time.Millisecond), Dur: int64(3 * time.Second), Events: 40,
		Metrics: &timing.Metrics{Gaps: 39, GapP50: int64(time.Millisecond), GapP99: int64(2500 * time.Millisecond), GapMax: int64(2500 * time.Millisecond), Stalls: 1, TokensIn: 900, TokensOut: 120, TokensPerS: 48},
		Session: "s0badcafe", Turn: 2, Findings: []string{"diff.upstream-client", "stream.outcome"}, Worst: inspect.Warn, Inspected: true,
		Tools: []string{"read_file"}, Text: func() string { return "The </use_tool<use_tool> seam\nin \"quotes\"" }}
	for expr, want := range map[string]bool{
		"":                                   true,
		"model=gpt-5":                        false,
		"model=gpt-5*":                       true,
		"model=GPT-5*":                       true,
		"model=claude-*,gpt-5*":              true,
		"model!=claude-*":                    true,
		"model!=gpt-5*":                      false,
		"m:2025":                             true,
		"model~^gpt-\\d":                     true,
		"model!~^gpt":                        false,
		"endpoint=/v1/chat/completions":      true,
		"ep:chat":                            true,
		"url=/v1/chat/completions":           false,
		"status=200":                         true,
		"status>=400":                        false,
		"outcome!=complete":                  true,
		"outcome=fail":                       true,
		"o=ok":                               false,
		"finding=diff.*":                     true,
		"finding=xml.*":                      false,
		"finding!=xml.*":                     true,
		"id:outcome":                         true,
		"sev>=warn":                          true,
		"sev=error":                          false,
		"sev:info":                           true,
		"tool=read_file":                     true,
		"tool=write*":                        false,
		"capture=seam-1.ndjson":              true,
		"capture=captures/*":                 true,
		"ex=3":                               true,
		"session=s0badcafe turn>1":           true,
		"ttfb>300ms":                         true,
		"ttfb>1s":                            false,
		"dur<=3s":                            true,
		"gap.max>2s":                         true,
		"gap.p50<2ms gap.p99>=2.5s":          true,
		"stalls>0":                           true,
		"stalls=0":                           false,
		"tokens.out>=120 in<1000":            true,
		"tps>50":                             false,
		"day=2026-11-22":                     true,
		"day=2026-11-23":                     false,
		"time>=2026-11-22T09:00:00Z":         true,
		"time<2026-11-22":                    false,
		"use_tool":                           true,
		"USE_TOOL<use":                       true,
		"text=\"*use_tool<use_tool> seam*\"": true,
		`text:"in \"quotes\""`:               true,
		"text!~use_tool":                     false,
		"nothing-like-this":                  false,
		"s0badcafe":                          true,
		"model=gpt-5* outcome!=complete finding=diff.*": true,
		"model=gpt-5* outcome=complete finding=diff.*":  false,
		"http://example": false, // a word with a colon, not a field
	} {
		f, err := ParseFilter(expr)
		if err != nil {
			t.Errorf("%q: %v", expr, err)
			continue
		}
		if got := f.Match(row); got != want {
			t.Errorf("%q matched %v, want %v", expr, got, want)
		}
	}
	// What a row does not know satisfies only the negative forms.
	open := &Row{Ex: 1, TTFB: -1, Dur: -1}
	for expr, want := range map[string]bool{"ttfb>0": false, "ttfb!=1s": true, "finding=x": false, "finding!=x": true, "day=2026-11-22": false, "gap.max>0": false, "sev>=info": false} {
		f, _ := ParseFilter(expr)
		if got := f.Match(open); got != want {
			t.Errorf("unknown %q matched %v, want %v", expr, got, want)
		}
	}
}

// TestFilterErrors: a mistake is refused with the term and what was
// expected.
func TestFilterErrors(t *testing.T) {
	for expr, want := range map[string]string{
		"modle=gpt":   `unknown field "modle"`,
		"ttfb>2":      "want a duration such as 300ms or 2s",
		"status>x":    "want a number",
		"model>a":     "model is text",
		"model~(":     "bad regular expression",
		"sev>=bad":    "unknown severity",
		`text="open`:  "a quote is not closed",
		"ttfb~1s":     "ttfb is not text",
		"time>monday": "want a date",
		"status>":     "no value after >",
	} {
		_, err := ParseFilter(expr)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", expr, err, want)
		}
	}
}
