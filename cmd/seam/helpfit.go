package main

import (
	"io"

	"github.com/seam-dev/seam/textreport"
)

// helpWidth is the width help text fits: an 80-column terminal.
const helpWidth = 80

// writeFitted writes help text fitted to helpWidth columns.
func writeFitted(w io.Writer, text string) {
	io.WriteString(w, textreport.FitHelp(text, helpWidth))
}
