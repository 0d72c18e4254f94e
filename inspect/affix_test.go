package inspect_test

import (
	"testing"

	"github.com/seam-dev/seam/inspect"
)

// TestCommonAffixes: the common prefix and the common suffix of what
// follows it, never cutting a UTF-8 rune.
func TestCommonAffixes(t *testing.T) {
	tests := []struct {
		a, b     string
		pre, suf int
	}{
		{"", "", 0, 0},
		{"abc", "abc", 3, 0},
		{"abXc", "abYc", 2, 1},
		{"abc", "abxbc", 2, 1}, // the suffix never overlaps the prefix
		{"héllo", "hèllo", 1, 3},
		{"aé", "aè", 1, 0}, // é and è share their first byte
		{"éa", "èa", 0, 1}, // and differ in their last
		{"x€", "y€", 0, 3}, // a three-byte rune as the suffix
		{"€x", "€y", 3, 0}, // and as the prefix
		{"a\u0301", "a", 1, 0},
	}
	for _, tt := range tests {
		pre, suf := inspect.CommonAffixes(tt.a, tt.b)
		if pre != tt.pre || suf != tt.suf {
			t.Errorf("CommonAffixes(%q, %q) = %d, %d, want %d, %d", tt.a, tt.b, pre, suf, tt.pre, tt.suf)
		}
	}
}
