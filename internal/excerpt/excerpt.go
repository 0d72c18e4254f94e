// Package excerpt cuts evidence out of stream bytes: a finding quotes a
// bounded excerpt of what it saw, never a whole payload, and names what
// a capture names (Name) only as a plain name or quoted.
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
func Cut(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// Name returns a name from a capture (a role, a tool name, a call id, a
// header name) as it may stand in a finding's message or a report line:
// unchanged when it is made of ASCII letters, digits and _.:- and no
// longer than 64 bytes (as every real one is), else quoted and clipped
// to 40 bytes.
func Name(s string) string {
	if s != "" && len(s) <= 64 && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-") == "" {
		return s
	}
	return strconv.Quote(Clip(s, 40))
}
