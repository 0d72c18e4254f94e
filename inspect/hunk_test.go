package inspect

import (
	"slices"
	"testing"
)

// TestHunkPairs pairs the k-th deleted line with the k-th added one, and
// leaves context and unmatched lines alone.
func TestHunkPairs(t *testing.T) {
	h := Hunk{Lines: []DiffLine{{Op: " "}, {Op: "-"}, {Op: "-"}, {Op: "+"}, {Op: " "}, {Op: "+"}, {Op: "+"}}}
	got := h.Pairs()
	want := []int{-1, 3, 5, 1, -1, 2, -1}
	if !slices.Equal(got, want) {
		t.Errorf("Pairs() = %v, want %v", got, want)
	}
}
