package check

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/seam-dev/seam/inspect"
)

// A finding that appears twice does not pass a golden listing it once, and
// the reverse: goldens count findings.
func TestCompareGoldenCounts(t *testing.T) {
	line := "error xml.unclosed-closer client event 282: </use_tool<use_tool>"
	other := "warn sse.unterminated-event client event 9"
	want := Golden{Exchanges: []GoldenExchange{{Ex: 1, Findings: []string{line, other}}}}
	for name, tc := range map[string]struct {
		got  []string
		diff []string
	}{
		"same":            {[]string{other, line}, nil},
		"one more":        {[]string{line, line, other}, []string{"+ " + line}},
		"one fewer":       {[]string{other}, []string{"- " + line}},
		"missing and new": {[]string{line, line}, []string{"- " + other, "+ " + line}},
	} {
		t.Run(name, func(t *testing.T) {
			got := Golden{Exchanges: []GoldenExchange{{Ex: 1, Findings: tc.got}}}
			problems := CompareGolden(want, got)
			if tc.diff == nil {
				if len(problems) != 0 {
					t.Fatalf("problems %q, want none", problems)
				}
				return
			}
			if len(problems) != 1 {
				t.Fatalf("problems %q, want one", problems)
			}
			lines := strings.Split(problems[0], "\n")[1:]
			if !reflect.DeepEqual(lines, tc.diff) {
				t.Fatalf("diff lines %q, want %q", lines, tc.diff)
			}
		})
	}
}

// Evidence is cut on a rune boundary: a cut inside a rune became U+FFFD
// in the golden and never matched again.
func TestFindingLinesCutOnRune(t *testing.T) {
	for pad := range 4 {
		ev := strings.Repeat("a", 78+pad) + strings.Repeat("€", 10)
		lines := FindingLines([]inspect.Finding{{ID: "x.y", Severity: inspect.Error, Evidence: ev, Pointer: inspect.Pointer{Event: -1}}})
		if len(lines) != 1 || !utf8.ValidString(lines[0]) {
			t.Fatalf("pad %d: line %q is not valid UTF-8", pad, lines)
		}
		if !strings.HasSuffix(lines[0], "…") || strings.ContainsRune(lines[0], utf8.RuneError) {
			t.Fatalf("pad %d: line %q", pad, lines[0])
		}
	}
}
