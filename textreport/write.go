package textreport

import (
	"io"

	"github.com/seam-dev/seam/inspect"
)

// ANSI colours, used only when the report is asked for colour.
const (
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiDim    = "\x1b[2m"
	ansiBold   = "\x1b[1m"
	ansiReset  = "\x1b[0m"
)

// Write writes r as the human report (see Writer): the capture's
// warnings, then per exchange a verdict line and the details, then the
// sessions of more than one turn and a summary. It reads well without
// colour; color adds ANSI highlighting.
func Write(w io.Writer, r *inspect.Report, color bool) error {
	t := NewWriter(w, color)
	t.Capture = r.Capture
	t.Warnings(r.Warnings)
	for _, x := range r.Exchanges {
		if err := t.Exchange(x); err != nil {
			return err
		}
	}
	t.Sessions(r.Sessions)
	return t.Close()
}

// painter returns the function that wraps text in an ANSI code, or leaves
// it plain when color is off.
func painter(color bool) func(code, s string) string {
	return func(code, s string) string {
		if !color {
			return s
		}
		return code + s + ansiReset
	}
}
