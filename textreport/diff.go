package textreport

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/visible"
)

// WriteDiff writes one diff with +/- gutters, each hunk headed by where it
// begins in the stream. It reads well without colour; color adds ANSI
// highlighting.
func WriteDiff(w io.Writer, d *inspect.Diff, color bool) error {
	bw := bufio.NewWriter(w)
	writeDiff(bw, d, "", painter(color))
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write diff: %w", err)
	}
	return nil
}

func writeDiff(w io.Writer, d *inspect.Diff, indent string, paint func(code, s string) string) {
	if d.Equal {
		fmt.Fprintf(w, "%s-- diff %s: %s and %s are equal\n", indent, visible.String(d.Kind), visible.String(d.A), visible.String(d.B))
		return
	}
	fmt.Fprintf(w, "%s-- diff %s\n", indent, visible.String(d.Kind))
	fmt.Fprintf(w, "%s--- %s\n%s+++ %s\n", indent, visible.String(d.A), indent, visible.String(d.B))
	for _, h := range d.Hunks {
		at := ""
		if h.At != nil {
			// Whose event it is, when the two streams are not one
			// exchange's two sides (recorded and replayed, two captures).
			label := d.B
			if h.AtA {
				label = d.A
			}
			at = " " + visible.String(h.At.String())
			if !strings.Contains(label, string(h.At.Side)) || strings.Contains(label, " ") {
				at = " " + visible.String(label) + ": " + visible.String(h.At.String())
			}
		}
		region := ""
		if r := h.Where(); r != "" {
			region = " " + r
		}
		fmt.Fprintf(w, "%s@@ a byte %d, b byte %d%s @@%s\n", indent, h.AOff, h.BOff, at, region)
		for _, l := range h.Lines {
			line := l.Op + " " + visible.String(excerpt.Clip(l.Text, 200))
			switch l.Op {
			case "-":
				line = paint(ansiRed, line)
			case "+":
				line = paint(ansiGreen, line)
			}
			fmt.Fprintf(w, "%s%s\n", indent, line)
		}
	}
	if d.HunksCut > 0 {
		fmt.Fprintf(w, "%s… %s (seam inspect --json or seam tui shows every one)\n", indent, more(d.HunksCut, "hunk"))
	}
}

// ShortenDiff returns d with at most hunks hunks (HunksCut counts the
// others) and every run of more than keep+2 added or removed
// lines cut to its first keep lines, a line counting the lines left out,
// and its last line. d itself is not changed.
func ShortenDiff(d *inspect.Diff, keep, hunks int) *inspect.Diff {
	out := *d
	out.Hunks = nil
	for i, h := range d.Hunks {
		if i == hunks {
			out.HunksCut = len(d.Hunks) - hunks
			break
		}
		var lines []inspect.DiffLine
		for j := 0; j < len(h.Lines); {
			k := j
			for k < len(h.Lines) && h.Lines[k].Op == h.Lines[j].Op {
				k++
			}
			run := h.Lines[j:k]
			if run[0].Op != " " && len(run) > keep+2 {
				lines = append(lines, run[:keep]...)
				lines = append(lines, inspect.DiffLine{Op: run[0].Op, Text: "… " + more(len(run)-keep-1, "line")})
				lines = append(lines, run[len(run)-1])
			} else {
				lines = append(lines, run...)
			}
			j = k
		}
		h.Lines = lines
		out.Hunks = append(out.Hunks, h)
	}
	return &out
}

// WriteDiffSummary writes the line ending seam diff over every exchange
// pair: which exchanges of A were compared with the same numbers in B (A
// having na exchanges, B nb), then those of either without a counterpart.
func WriteDiffSummary(w io.Writer, compared, onlyA, onlyB []int, na, nb int) error {
	what := "no exchange: none has the same number in A and B"
	switch {
	case len(compared) == 1:
		what = "exchange " + joinInts(compared) + " of A with the same number in B"
	case len(compared) > 1:
		what = "exchanges " + joinInts(compared) + " of A with the same numbers in B"
	}
	if _, err := fmt.Fprintf(w, "compared %s (A has %s, B has %d)\n", what, units.Count(na, "exchange"), nb); err != nil {
		return err
	}
	if len(onlyA) > 0 {
		fmt.Fprintf(w, "only in A: exchange %s\n", joinInts(onlyA))
	}
	if len(onlyB) > 0 {
		fmt.Fprintf(w, "only in B: exchange %s\n", joinInts(onlyB))
	}
	return nil
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
