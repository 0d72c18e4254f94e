package inspect

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/clients"
	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/visible"
)

// WriteJSON writes r as one indented JSON document (schema in doc.go),
// with the characters a terminal would act on written as \u escapes
// (visible.JSON).
func WriteJSON(w io.Writer, r *Report) error {
	jw := NewJSONWriter(w, r.Capture)
	jw.SetSessions(r.Sessions)
	for _, x := range r.Exchanges {
		if err := jw.Exchange(x); err != nil {
			return err
		}
	}
	return jw.Close(r.Warnings)
}

// ANSI colours, used only when WriteText is asked for colour.
const (
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiDim    = "\x1b[2m"
	ansiBold   = "\x1b[1m"
	ansiReset  = "\x1b[0m"
)

// WriteText writes the human report (see TextWriter): the capture's
// warnings, then per exchange a verdict line and the details, then the
// sessions of more than one turn and a summary. It reads well without colour; color adds ANSI highlighting.
func WriteText(w io.Writer, r *Report, color bool) error {
	t := NewTextWriter(w, color)
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

// WriteDiff writes one diff with +/- gutters, each hunk headed by where it
// begins in the stream. It reads well without colour; color adds ANSI
// highlighting.
func WriteDiff(w io.Writer, d *Diff, color bool) error {
	bw := bufio.NewWriter(w)
	writeDiff(bw, d, "", painter(color))
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write diff: %w", err)
	}
	return nil
}

func writeDiff(w io.Writer, d *Diff, indent string, paint func(code, s string) string) {
	if d.Equal {
		fmt.Fprintf(w, "%s-- diff %s: %s and %s are equal\n", indent, visible.String(d.Kind), visible.String(d.A), visible.String(d.B))
		return
	}
	fmt.Fprintf(w, "%s-- diff %s\n", indent, visible.String(d.Kind))
	fmt.Fprintf(w, "%s--- %s\n%s+++ %s\n", indent, visible.String(d.A), indent, visible.String(d.B))
	for _, h := range d.Hunks {
		at := ""
		if h.At != nil {
			at = " " + visible.String(h.At.String())
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

// WriteClient writes what one emulated client ends up with.
func WriteClient(w io.Writer, r *Report, client string) error {
	bw := bufio.NewWriter(w)
	for _, x := range r.Exchanges {
		if x.WebSocket == nil && !slices.Contains(clients.For(x.Protocol), client) {
			fmt.Fprintf(bw, "== exchange %d: %s does not read %s (its clients: %s)\n", x.Ex, client, x.Protocol, strings.Join(clients.For(x.Protocol), ", "))
			continue
		}
		for _, c := range x.Clients {
			if c.Client != client {
				continue
			}
			fmt.Fprintf(bw, "== exchange %d as %s (%s)\n", x.Ex, c.Client, c.Rule)
			fmt.Fprintf(bw, "text: %s\n", strconv.Quote(c.Text))
			if c.Display != nil {
				fmt.Fprintf(bw, "display: %s\n", strconv.Quote(*c.Display))
			}
			for _, tc := range c.ToolCalls {
				fmt.Fprintf(bw, "tool %d %s %s #%s\n", tc.Index, visible.String(tc.Name), visible.String(tc.Arguments), visible.String(tc.ID))
			}
			fmt.Fprintf(bw, "finish: %s\n", orDash(c.FinishReason))
			if c.Error != "" {
				fmt.Fprintf(bw, "error: %s\n", visible.String(c.Error))
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write client view: %w", err)
	}
	return nil
}

// orDash draws s (from a capture) for the terminal, or "-" when empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return visible.String(s)
}
