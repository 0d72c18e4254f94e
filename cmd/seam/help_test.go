package main

import (
	"strings"
	"testing"
)

// TestHelpTexts: every command has its help text with every placeholder
// filled, and every file in help/ is a command's or seam help's.
func TestHelpTexts(t *testing.T) {
	names := map[string]bool{"seam.txt": true} // seam help
	for _, c := range commands() {
		names[c.name+".txt"] = true
		if strings.TrimSpace(helpText(c.name)) == "" || strings.Contains(helpText(c.name), "{{") {
			t.Errorf("seam help %s: %q", c.name, helpText(c.name))
		}
	}
	files, err := helpFiles.ReadDir("help")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !names[f.Name()] {
			t.Errorf("help/%s is no command's help", f.Name())
		}
	}
}
