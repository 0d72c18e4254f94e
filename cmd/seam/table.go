package main

import (
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
	"github.com/seam-dev/seam/tui"
)

// column is one column of a text table.
type column struct {
	head string
	// right aligns the column to the right (numbers).
	right bool
	// drop ranks the columns left out when the table is wider than the
	// terminal: the highest first; 0 is never left out.
	drop int
	// shrink lets the column be cut (with …) down to 8 cells to fit.
	shrink bool
}

// table is a text table that fits a width: columns are left out by rank,
// then shrinkable ones cut, so every line fits.
type table struct {
	cols []column
	rows [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// write renders the table in at most width cells per line (no limit when
// width is 0). Cells must be drawn for the terminal already.
func (t *table) write(w io.Writer, width int) error {
	keep := make([]bool, len(t.cols))
	widths := make([]int, len(t.cols))
	for i, c := range t.cols {
		keep[i] = true
		widths[i] = ansi.StringWidth(c.head)
		for _, r := range t.rows {
			if i < len(r) {
				widths[i] = max(widths[i], ansi.StringWidth(r[i]))
			}
		}
	}
	total := func() int {
		n, cols := 0, 0
		for i := range t.cols {
			if keep[i] {
				n += widths[i]
				cols++
			}
		}
		return n + 2*max(cols-1, 0)
	}
	for width > 0 && total() > width {
		worst := -1
		for i, c := range t.cols {
			if keep[i] && c.drop > 0 && (worst < 0 || c.drop >= t.cols[worst].drop) {
				worst = i
			}
		}
		if worst < 0 {
			break
		}
		keep[worst] = false
	}
	for i, c := range t.cols {
		if over := total() - width; width > 0 && over > 0 && keep[i] && c.shrink {
			widths[i] = max(widths[i]-over, 8)
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		var parts []string
		for i, c := range t.cols {
			if !keep[i] {
				continue
			}
			cell := ""
			if i < len(cells) {
				cell = cells[i]
			}
			if ansi.StringWidth(cell) > widths[i] {
				cell = ansi.Truncate(cell, widths[i], "…")
			}
			pad := strings.Repeat(" ", widths[i]-ansi.StringWidth(cell))
			if c.right {
				parts = append(parts, pad+cell)
			} else {
				parts = append(parts, cell+pad)
			}
		}
		b.WriteString(strings.TrimRight(strings.Join(parts, "  "), " "))
		b.WriteByte('\n')
	}
	heads := make([]string, len(t.cols))
	for i, c := range t.cols {
		heads[i] = c.head
	}
	line(heads)
	for _, r := range t.rows {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// termWidth returns the width a table written to out must fit: the
// terminal's columns when out is one, else $COLUMNS when set, else 0 (no
// limit: a pipe gets every column).
func termWidth(e *env, out io.Writer) int {
	if f, ok := out.(*os.File); ok && tui.IsTerminal(out) {
		if w, _, err := term.GetSize(f.Fd()); err == nil && w > 0 {
			return w
		}
	}
	if n, err := strconv.Atoi(e.getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 0
}
