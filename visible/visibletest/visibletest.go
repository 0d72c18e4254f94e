// Package visibletest checks, in tests, that output meant for a terminal
// holds nothing a terminal would act on.
package visibletest

import (
	_ "embed"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Check returns an error naming the first character of s a terminal could
// act on, or that hides or reorders text: a C0 control other than line
// feed and tab, DEL, a C1 control, a format character (bidi overrides and
// isolates, zero-width characters), a line or paragraph separator, a byte
// that is not UTF-8, or an escape that does not start an SGR sequence
// (ESC [ digits and semicolons m, which styling writes). It is written
// apart from package visible, so it checks it rather than repeats it.
func Check(s string) error {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b:
			j := i + 1
			if j < len(s) && s[j] == '[' {
				j++
				for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';') {
					j++
				}
				if j < len(s) && s[j] == 'm' {
					i = j + 1
					continue
				}
			}
			return fmt.Errorf("byte %d: an escape that is not SGR: %q", i, context(s, i))
		case r == utf8.RuneError && n == 1:
			return fmt.Errorf("byte %d: %#x is not UTF-8: %q", i, s[i], context(s, i))
		case r == '\n' || r == '\t':
		case r < 0x20 || r >= 0x7f && r < 0xa0 || r == 0x2028 || r == 0x2029 || unicode.In(r, unicode.Cf):
			return fmt.Errorf("byte %d: %U reaches the terminal: %q", i, r, context(s, i))
		}
		i += n
	}
	return nil
}

func context(s string, i int) string {
	return s[max(0, i-30):min(len(s), i+30)]
}

// Capture is a seam capture (format v1) built to attack a terminal: an OSC
// 52 clipboard write, screen-clearing and text-hiding CSI sequences, bidi
// override and isolate, NUL, C1 controls and DEL in every field seam
// shows (capture version and upstream, method, URL, header names and
// values, model, roles, tool names and ids, tool call arguments, event
// names, stream text, finish reasons, outcomes, errors, notes), and a
// chunk that is not UTF-8. Its three exchanges are a Chat Completions
// stream, an error answer and an Anthropic stream. The file is ASCII: the
// hostile characters are JSON escapes.
//
//go:embed hostile.ndjson
var Capture []byte

// Hostile is the hostile text Capture carries in every field.
const Hostile = "\x1b]52;c;SGFjaw==\x07\x1b[2J\x1b[8m\u202e\u2066\x00\u009b\u0085\x7f"
