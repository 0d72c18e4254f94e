package textreport

import (
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Column is one column of a text table.
type Column struct {
	Head string
	// Right aligns the column to the right (numbers).
	Right bool
	// Drop ranks the columns left out when the table is wider than the
	// terminal: the highest first; 0 is never left out.
	Drop int
	// Shrink lets the column be cut (with …) down to Min cells (8 when 0)
	// to fit; columns are cut left to right, but ShrinkLast ones only when
	// the others are at their Min.
	Shrink     bool
	ShrinkLast bool
	Min        int
	// Middle cuts a cell in its middle, keeping its start and its end (a
	// capture name and its #N), instead of at its end.
	Middle bool
}

// minWidth is how narrow a shrinkable column may be cut.
func (c Column) minWidth() int {
	if c.Min > 0 {
		return c.Min
	}
	return 8
}

// Table is a text table that fits a width: columns are left out by rank,
// then shrinkable ones cut, so every line fits.
type Table struct {
	Cols []Column
	rows [][]string
}

// Add adds a row of cells, drawn for the terminal already (see package
// visible).
func (t *Table) Add(cells ...string) { t.rows = append(t.rows, cells) }

// Write renders the table in at most width cells per line (no limit when
// width is 0).
func (t *Table) Write(w io.Writer, width int) error {
	keep := make([]bool, len(t.Cols))
	widths := make([]int, len(t.Cols))
	for i, c := range t.Cols {
		keep[i] = true
		widths[i] = ansi.StringWidth(c.Head)
		for _, r := range t.rows {
			if i < len(r) {
				widths[i] = max(widths[i], ansi.StringWidth(r[i]))
			}
		}
	}
	total := func() int {
		n, cols := 0, 0
		for i := range t.Cols {
			if keep[i] {
				n += widths[i]
				cols++
			}
		}
		return n + 2*max(cols-1, 0)
	}
	for width > 0 && total() > width {
		worst := -1
		for i, c := range t.Cols {
			if keep[i] && c.Drop > 0 && (worst < 0 || c.Drop >= t.Cols[worst].Drop) {
				worst = i
			}
		}
		if worst < 0 {
			break
		}
		keep[worst] = false
	}
	for _, last := range []bool{false, true} {
		for i, c := range t.Cols {
			if over := total() - width; width > 0 && over > 0 && keep[i] && c.Shrink && c.ShrinkLast == last {
				widths[i] = max(widths[i]-over, min(widths[i], c.minWidth()))
			}
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		var parts []string
		for i, c := range t.Cols {
			if !keep[i] {
				continue
			}
			cell := ""
			if i < len(cells) {
				cell = cells[i]
			}
			if ansi.StringWidth(cell) > widths[i] {
				cell = cut(cell, widths[i], c.Middle)
			}
			pad := strings.Repeat(" ", widths[i]-ansi.StringWidth(cell))
			if c.Right {
				parts = append(parts, pad+cell)
			} else {
				parts = append(parts, cell+pad)
			}
		}
		b.WriteString(strings.TrimRight(strings.Join(parts, "  "), " "))
		b.WriteByte('\n')
	}
	heads := make([]string, len(t.Cols))
	for i, c := range t.Cols {
		heads[i] = c.Head
	}
	line(heads)
	for _, r := range t.rows {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cut fits cell into width cells with an ellipsis: at its end, or in its
// middle, keeping as much of its end as of its start (the end a little
// more: that is where a capture's #N is).
func cut(cell string, width int, middle bool) string {
	if !middle || width < 5 {
		return ansi.Truncate(cell, width, "…")
	}
	tail := (width - 1 + 1) / 2
	head := width - 1 - tail
	n := ansi.StringWidth(cell)
	return ansi.Truncate(cell, head, "") + "…" + ansi.TruncateLeft(cell, n-tail, "")
}
