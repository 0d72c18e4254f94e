package textreport

import (
	"bufio"
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"

	"github.com/seam-dev/seam/inspect"
)

// WriteDetectors writes every detector in 80 columns: its severity and id,
// then what it finds and the bug it catches, wrapped and indented.
func WriteDetectors(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "seam inspect runs these detectors on every exchange. A finding names\nits detector, its severity (error, warn or info) and where in the stream it\nwas born.\n")
	for _, d := range inspect.Detectors() {
		fmt.Fprintf(bw, "\n%-5s  %s\n", d.Severity, d.ID)
		text := capitalise(d.Summary) + "."
		if d.Catches != "" {
			text += " Catches " + d.Catches + "."
		}
		fmt.Fprint(bw, Wrap(text, 79, "       "))
	}
	return bw.Flush()
}

// capitalise returns s with its first letter in upper case.
func capitalise(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
