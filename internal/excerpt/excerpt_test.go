package excerpt

import (
	"strings"
	"testing"
)

// TestName: real names stand as they are; anything else is quoted and
// clipped, so a name from a capture cannot pass for message text.
func TestName(t *testing.T) {
	for s, want := range map[string]string{
		"read_file":             "read_file",
		"call_1:a.b-c":          "call_1:a.b-c",
		"":                      `""`,
		"two words":             `"two words"`,
		"x\x1b[31m":             `"x\x1b[31m"`,
		strings.Repeat("a", 65): `"` + strings.Repeat("a", 40) + `…"`,
	} {
		if got := Name(s); got != want {
			t.Errorf("Name(%q) = %s, want %s", s, got, want)
		}
	}
}
