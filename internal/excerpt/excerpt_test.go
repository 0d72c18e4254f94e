package excerpt

import (
	"strings"
	"testing"
)

// TestName: a plain name stands as it is; one holding anything else (a
// space, a quote, a control or bidi character, a newline), or too long,
// is quoted and clipped, so it can neither break a line of a report nor
// pass for the words around it.
func TestName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"call_1", "call_1"},
		{"tool-result:2.a", "tool-result:2.a"},
		{"", `""`},
		{"get weather", `"get weather"`},
		{"a\nb", `"a\nb"`},
		{"x\u202ey", `"x\u202ey"`},
		{strings.Repeat("a", 64), strings.Repeat("a", 64)},
		{strings.Repeat("a", 65), `"` + strings.Repeat("a", 40) + `…"`},
	} {
		if got := Name(tc.in); got != tc.want {
			t.Errorf("Name(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
