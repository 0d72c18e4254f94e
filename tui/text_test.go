package tui

import (
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestFitAndPaintCutLongText: a text longer than a line can show is cut
// to the same cells, with the same ellipsis, as when the whole of it is
// measured, whatever its characters take per cell (CJK, emoji, flags,
// combining accents, joined emoji), and however many runs it spans.
func TestFitAndPaintCutLongText(t *testing.T) {
	t.Parallel()
	whole := func(s string, width int) string { // fit without head
		if ansi.StringWidth(s) > width {
			s = ansi.Truncate(s, width-1, "") + "…"
		}
		return padRight(s, width)
	}
	for _, unit := range []string{"a", "漢", "🙂", "🇫🇷", "e\u0301", "👨‍👩‍👧", "ab漢🙂"} {
		for _, n := range []int{1, 10, 1000, 100000} {
			s := "GET /x?q=" + strings.Repeat(unit, n)
			for _, width := range []int{1, 2, 7, 80, 300} {
				want := whole(s, width)
				if got := fit(s, width); got != want {
					t.Fatalf("fit(%q×%d, %d) = %q, want %q", unit, n, width, got, want)
				}
				half := len("GET /x?q=") + len(unit)*(n/2)
				runs := []run{txt("  "), txt(s[:half]), sty(s[half:], lipgloss.NewStyle().Bold(true))}
				got := ansi.Strip(paint(runs, width, "", lipgloss.Style{}))
				if ansi.StringWidth("  "+s) <= width {
					want = "  " + s
				} else {
					want = ansi.Truncate("  "+s, width-1, "") + "…"
				}
				if got != want {
					t.Fatalf("paint(%q×%d, %d) = %q, want %q", unit, n, width, got, want)
				}
			}
		}
	}
}

// TestDrawnHead: a line cut with drawnHead paints, on a screen of its
// width, as the whole line does: markers, wide characters and trailing
// spaces alike.
func TestDrawnHead(t *testing.T) {
	t.Parallel()
	mark := lipgloss.NewStyle().Bold(true)
	for _, unit := range []string{"a", "\x07", "a\x1b", "漢\u202e", "\xff", "⟨", "\t ", "e\u0301"} {
		for _, n := range []int{1, 50, 5000} {
			for _, tail := range []string{"", "   "} {
				s := strings.Repeat(unit, n) + tail
				trail := len(strings.TrimRight(s, " "))
				for _, width := range []int{1, 10, 138} {
					want := paint(visibleRuns(s, txt(""), mark, false), width, "", lipgloss.Style{})
					got := paint(visibleTrail(drawnHead(s, width), trail, txt(""), mark, false), width, "", lipgloss.Style{})
					if ansi.Strip(got) != ansi.Strip(want) {
						t.Fatalf("%q×%d%q at %d: cut paints %q, whole %q", unit, n, tail, width, ansi.Strip(got), ansi.Strip(want))
					}
				}
			}
		}
	}
}
