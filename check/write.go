package check

import (
	"fmt"
	"io"
	"strings"

	"github.com/seam-dev/seam/visible"
)

// WriteResult writes a seam check fixture's ok or FAIL line, and
// under a FAIL what differs.
func WriteResult(w io.Writer, r Result) {
	if r.OK {
		fmt.Fprintf(w, "ok    %s\n", visible.String(r.Path))
		return
	}
	fmt.Fprintf(w, "FAIL  %s\n", visible.String(r.Path))
	for _, pr := range r.Problems {
		// Problems quote the fixture: evidence, frames, warnings.
		fmt.Fprintf(w, "      %s\n", strings.ReplaceAll(visible.Text(pr), "\n", "\n      "))
	}
}

// Summary is seam check --json's document: how many fixtures passed and
// failed, and each one's result.
type Summary struct {
	Passed   int      `json:"passed"`
	Failed   int      `json:"failed"`
	Fixtures []Result `json:"fixtures"`
}
