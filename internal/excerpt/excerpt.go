// Package excerpt cuts evidence out of stream bytes: a finding quotes a
// bounded excerpt of what it saw, never a whole payload.
package excerpt

import "unicode/utf8"

// Clip shortens s to at most n bytes, cut on a rune boundary, and marks
// the cut with "…".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
