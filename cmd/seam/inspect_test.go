package main

import (
	"os"
	"testing"

	"github.com/seam-dev/seam/tui"
)

// Colour, the progress line and the table's width follow a terminal only:
// /dev/null is a character device, not a terminal.
func TestDevNullIsNoTerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	e := testEnv(nil, nil, f)
	if colorFlag("auto").enabled(e, f) || tui.IsTerminal(f) {
		t.Fatal("/dev/null taken for a terminal")
	}
}
