package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestHelpFitsEighty: every line seam's help prints (seam help, each
// command's -h, the help topics) fits an 80-column terminal; a command
// line broken to fit keeps a shell continuation so it can be pasted.
func TestHelpFitsEighty(t *testing.T) {
	pages := [][]string{{"help"}, {"help", "where"}, {"help", "switches"}}
	for _, c := range commands() {
		pages = append(pages, []string{c.name, "-h"})
	}
	for _, args := range pages {
		out, err := seamOutput(args...)
		if err != nil {
			t.Fatalf("seam %s: %v", strings.Join(args, " "), err)
		}
		for i, line := range strings.Split(string(out), "\n") {
			if n := utf8.RuneCountInString(line); n > helpWidth {
				t.Errorf("seam %s, line %d: %d columns: %q", strings.Join(args, " "), i+1, n, line)
			}
		}
	}
}
