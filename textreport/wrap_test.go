package textreport

import (
	"strings"
	"testing"
)

// Wrapped lines fit the width in columns, not bytes (a "×" is one column
// of two bytes), keep each item whole, and start with the head, then the
// indent.
func TestWrapWords(t *testing.T) {
	items := []string{"client.disagree ×9,", "diff.tool-args-changed ×3,", "sse.unterminated-event ×2,", "xml.unclosed-closer ×1"}
	got := WrapWords(items, 53, "  all: ", "    ")
	want := "  all: client.disagree ×9, diff.tool-args-changed ×3,\n" +
		"    sse.unterminated-event ×2, xml.unclosed-closer ×1\n"
	if got != want {
		t.Fatalf("wrapped\n%s\nwant\n%s", got, want)
	}
	if got := WrapWords(items, 0, "  ", "    "); strings.Count(got, "\n") != 1 {
		t.Fatalf("width 0 wrapped: %q", got)
	}
	if got := Wrap("a bb ccc", 5, "  "); got != "  a\n  bb\n  ccc\n" {
		t.Fatalf("wrap: %q", got)
	}
}
