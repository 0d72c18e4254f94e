// Package excerpt cuts evidence out of stream bytes: a finding quotes a
// bounded excerpt of what it saw, never a whole payload, and names a role,
// tool or header from a capture as it is only when it looks like one.
package excerpt

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Clip shortens s to at most n bytes, cut on a rune boundary, and marks
// the cut with "…".
func Clip(s string, n int) string {
	if c, cut := Cut(s, n); cut {
		return c + "…"
	}
	return s
}

// Cut returns the start of s of at most n bytes, cut on a rune boundary,
// and whether anything of s was left out.
func Cut[S ~string | ~[]byte](s S, n int) (S, bool) {
	if len(s) <= n {
		return s, false
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// Name returns a role, tool name, call id or header name from a capture as
// it may stand in a message naming it: unchanged when made of letters,
// digits and _.:- (as every real one is), else quoted and clipped to 40
// bytes.
func Name(s string) string {
	if s != "" && len(s) <= 64 && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-") == "" {
		return s
	}
	return strconv.Quote(Clip(s, 40))
}
