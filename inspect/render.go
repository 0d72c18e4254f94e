package inspect

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/visible"
)

// WriteJSON writes r as one indented JSON document (schema in doc.go),
// with the characters a terminal would act on written as \u escapes
// (visible.JSON).
func WriteJSON(w io.Writer, r *Report) error {
	jw := NewJSONWriter(w, r.Capture)
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

// WriteText writes the human report: per exchange a header line, the
// assembled result per side, where clients disagree, findings sorted by
// severity, and the diffs with +/- gutters. It reads well without colour;
// color adds ANSI highlighting.
func WriteText(w io.Writer, r *Report, color bool) error {
	bw := bufio.NewWriter(w)
	paint := painter(color)
	for _, wn := range r.Warnings {
		fmt.Fprintf(bw, "warning: %s\n", visible.String(wn))
	}
	for _, x := range r.Exchanges {
		fmt.Fprintf(bw, "%s\n", paint(ansiBold, fmt.Sprintf("== exchange %d  %s %s", x.Ex, visible.String(x.Method), visible.String(x.Origin+x.Endpoint))))
		fmt.Fprintf(bw, "   model %s · %s · status %d · %s · ttfb %s · duration %s · %d events\n",
			orDash(x.Model), x.Protocol, x.Status, orDash(string(x.Outcome)), FormatDuration(x.TTFB), FormatDuration(x.Dur), x.Events)
		if line := x.Metrics.Line(); line != "" {
			fmt.Fprintf(bw, "   %s\n", line)
		}
		if x.Session != nil {
			fmt.Fprintf(bw, "   %s\n", x.Session.line(r.Capture))
		}
		sides := x.Sides
		if x.WebSocket != nil {
			writeWebSocket(bw, x, paint)
			sides = nil
		}
		for _, s := range sides {
			m := s.Message
			fmt.Fprintf(bw, "-- %s: %d chunks, %d events, %d bytes", visible.String(string(s.Side)), s.Chunks, s.Events, s.Bytes)
			if s.Encoding != "" {
				fmt.Fprintf(bw, " %s (%d decoded)", visible.String(s.Encoding), s.Decoded)
			}
			if s.Framing != framing.Unknown && s.Framing != framing.SSE {
				fmt.Fprintf(bw, ", %s", s.Framing)
			}
			if s.Outcome != "" {
				fmt.Fprintf(bw, ", %s", visible.String(string(s.Outcome)))
			}
			if m.Status != "" {
				fmt.Fprintf(bw, ", status %s", visible.String(m.Status))
			}
			fmt.Fprintln(bw)
			for _, ch := range m.Choices {
				if len(m.Choices) > 1 {
					fmt.Fprintf(bw, "   choice %d\n", ch.Index)
				}
				if ch.Reasoning != "" {
					fmt.Fprintf(bw, "   reasoning: %s\n", strconv.Quote(excerpt.Clip(ch.Reasoning, 200)))
				}
				fmt.Fprintf(bw, "   text: %s\n", strconv.Quote(excerpt.Clip(ch.Text, 400)))
				if ch.Refusal != "" {
					fmt.Fprintf(bw, "   refusal: %s\n", strconv.Quote(ch.Refusal))
				}
				for _, tc := range ch.ToolCalls {
					fmt.Fprintf(bw, "   tool %d %s %s #%s\n", tc.Index, visible.String(tc.Name), visible.String(excerpt.Clip(tc.Arguments, 200)), visible.String(tc.ID))
				}
				fmt.Fprintf(bw, "   finish: %s\n", orDash(ch.FinishReason))
			}
			if m.Usage != nil {
				fmt.Fprintf(bw, "   usage: in %d, out %d", m.Usage.Input, m.Usage.Output)
				if m.Usage.Reasoning > 0 {
					fmt.Fprintf(bw, " (reasoning %d)", m.Usage.Reasoning)
				}
				fmt.Fprintln(bw)
			}
			if m.Error != "" {
				fmt.Fprintf(bw, "   error: %s\n", paint(ansiRed, visible.String(m.Error)))
			}
		}
		if d := x.RequestDiff; d != nil {
			fmt.Fprintf(bw, "-- request: client's vs sent upstream by the proxy under test\n")
			for _, l := range d.Lines() {
				fmt.Fprintf(bw, "   %s\n", visible.String(l))
			}
		}
		if len(x.Disagreements) > 0 {
			fmt.Fprintf(bw, "-- clients disagree\n")
			for _, d := range x.Disagreements {
				fmt.Fprintf(bw, "   %s:\n", visible.String(d.Field))
				for _, v := range d.Values {
					fmt.Fprintf(bw, "     %-16s %s\n", v.Client, strconv.Quote(excerpt.Clip(v.Value, 120)))
				}
			}
		}
		fmt.Fprintf(bw, "-- findings: %d\n", len(x.Findings))
		for _, f := range x.Findings {
			code := ansiDim
			switch f.Severity {
			case Error:
				code = ansiRed
			case Warn:
				code = ansiYellow
			}
			fmt.Fprintf(bw, "   %s %s  %s\n", paint(code, fmt.Sprintf("%-5s", f.Severity)), visible.String(f.ID), visible.String(f.Message))
			fmt.Fprintf(bw, "         at %s\n", visible.String(f.Pointer.String()))
			if f.Peer != nil {
				fmt.Fprintf(bw, "         vs %s\n", visible.String(f.Peer.String()))
			}
			if f.Evidence != "" {
				fmt.Fprintf(bw, "         evidence: %s\n", strconv.Quote(f.Evidence))
			}
		}
		for _, d := range x.Diffs {
			writeDiff(bw, d, "   ", paint)
		}
		fmt.Fprintln(bw)
	}
	writeSessions(bw, r.Sessions, paint)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
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
}

// WriteClient writes what one emulated client ends up with.
func WriteClient(w io.Writer, r *Report, client string) error {
	bw := bufio.NewWriter(w)
	for _, x := range r.Exchanges {
		if x.WebSocket == nil && !slices.Contains(ClientsFor(x.Protocol), client) {
			fmt.Fprintf(bw, "== exchange %d: %s does not read %s (its clients: %s)\n", x.Ex, client, x.Protocol, strings.Join(ClientsFor(x.Protocol), ", "))
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
