package textreport

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/session"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible"
)

// textWidth is the terminal width the text report is laid out for: prose
// is wrapped to it, and a verdict line fits it unless an id is very long.
const textWidth = 80

// Budgets of the text report. Whatever is cut says how much was left out;
// seam inspect --json, --client and seam tui show everything.
const (
	textClip     = 150 // bytes of a side's assembled text or reasoning shown
	textBefore   = 40  // bytes shown before the first difference of two sides' texts
	argsClip     = 120 // bytes of a tool call's arguments
	evidenceClip = 110 // bytes of a finding's evidence
	valueClip    = 44  // bytes of a client's value where clients disagree
	diffKeep     = 4   // lines kept at the start of a long run of added or removed lines
	diffHunks    = 5   // hunks shown per diff
	summaryList  = 10  // exchanges with errors or warnings the summary lists
	verdictSaid  = 100 // bytes of the provider's error message a verdict line quotes
)

// Writer writes the human report exchange by exchange, so a caller
// reading a capture exchange by exchange never holds more than one. Each
// exchange starts with its verdict line: number, protocol, outcome and the
// worst finding with where it was born (or "ok"), then the request line,
// the findings, the timing and the session, what each side assembled to
// (the client's said once when it is the upstream's, two differing texts
// shown around where they part), where clients disagree, and the diffs,
// long runs of lines cut with a count. Close ends the report with a
// summary: how many exchanges had errors, warnings or neither, and the
// verdicts of those that had some.
//
// Text from the capture is drawn with package visible's markers or quoted;
// the report reads well without colour, and color adds ANSI highlighting.
type Writer struct {
	// Capture names the capture the exchanges come from, so that a
	// session line names the exchanges of other captures by theirs.
	Capture string

	bw    *bufio.Writer
	paint func(code, s string) string
	// n counts the exchanges written, count them by verdict (Info is
	// ok).
	n     int
	count [3]int
	// listed holds the verdicts of the first exchanges with errors or
	// warnings, unlisted how many more there were.
	listed   [][]string
	unlisted int
}

// NewWriter returns a Writer writing to w, with ANSI colour when
// color is set.
func NewWriter(w io.Writer, color bool) *Writer {
	return &Writer{bw: bufio.NewWriter(w), paint: painter(color)}
}

// Warnings writes the capture-level warnings, one line each.
func (t *Writer) Warnings(ws []string) {
	for _, wn := range ws {
		fmt.Fprintf(t.bw, "warning: %s\n", visible.String(wn))
	}
}

// Exchange writes one exchange's report and flushes it.
func (t *Writer) Exchange(x *inspect.ExchangeReport) error {
	bw, paint := t.bw, t.paint
	t.n++
	worst := verdictFinding(x)
	v := verdict(x, worst, paint)
	sev := inspect.Info
	if worst != nil {
		sev = worst.Severity
		if len(t.listed) < summaryList {
			t.listed = append(t.listed, v)
		} else {
			t.unlisted++
		}
	}
	t.count[sev]++
	writeItems(bw, paint(ansiBold, "==")+" ", v)
	meta := []string{visible.String(x.Method) + " " + visible.String(x.Origin+x.Endpoint), "model " + orDash(x.Model),
		"status " + strconv.Itoa(x.Status), "ttfb " + units.Duration(x.TTFB), "duration " + units.Duration(x.Dur), units.Count(x.Events, "event")}
	writeItems(bw, "   ", meta)
	if x.Paired != "" && x.Paired != tape.PairedHeader {
		writeItems(bw, "   ", []string{x.PairingText()})
	}
	writeFindings(bw, x.Findings, paint)
	if line := x.Metrics.Line(); line != "" {
		writeItems(bw, "-- timing: ", strings.Split(line, " · "))
	}
	if x.Session != nil {
		writeItems(bw, "-- ", strings.Split(sessionLine(x.Session, t.Capture), " · "))
	}
	if x.WebSocket != nil {
		writeWebSocket(bw, x, paint)
	} else {
		writeSides(bw, x.Sides, paint)
	}
	if d := x.RequestDiff; d != nil {
		fmt.Fprintf(bw, "-- request: client's vs sent upstream by the proxy under test\n")
		for _, l := range d.Lines() {
			fmt.Fprintf(bw, "   %s\n", visible.String(l))
		}
	}
	if len(x.Disagreements) > 0 {
		fields := make([]string, len(x.Disagreements))
		for i, d := range x.Disagreements {
			fields[i] = visible.String(d.Field)
		}
		fmt.Fprintf(bw, "-- clients disagree on %s\n", strings.Join(fields, ", "))
		for _, d := range x.Disagreements {
			fmt.Fprintf(bw, "   %s:\n", visible.String(d.Field))
			for _, v := range d.Values {
				fmt.Fprintf(bw, "     %-16s %s\n", v.Client, quoteClip(v.Value, valueClip))
			}
		}
	}
	var equal []string
	for _, d := range x.Diffs {
		if d.Equal {
			equal = append(equal, visible.String(d.A)+" and "+visible.String(d.B))
			continue
		}
		writeDiff(bw, ShortenDiff(d, diffKeep, diffHunks), "   ", paint)
	}
	if len(equal) > 0 {
		writeWrapped(bw, "-- equal: ", strings.Join(equal, "; "), "   ")
	}
	fmt.Fprintln(bw)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// Sessions writes the sessions of more than one turn the exchanges
// formed.
func (t *Writer) Sessions(ss []*session.Session) {
	writeSessions(t.bw, ss, t.paint)
}

// Close writes the summary line, and the verdicts of the exchanges that
// had errors or warnings when there were several exchanges, and flushes.
func (t *Writer) Close() error {
	bw := t.bw
	switch {
	case t.n == 0:
		fmt.Fprintf(bw, "== no exchanges\n")
	default:
		var parts []string
		for _, c := range []struct {
			sev  inspect.Severity
			word string
		}{{inspect.Error, "with errors"}, {inspect.Warn, "with warnings"}, {inspect.Info, "ok"}} {
			if n := t.count[c.sev]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, c.word))
			}
		}
		fmt.Fprintf(bw, "%s %s: %s\n", t.paint(ansiBold, "=="), units.Count(t.n, "exchange"), strings.Join(parts, ", "))
		if t.n > 1 {
			for _, v := range t.listed {
				writeItems(bw, "   ", v)
			}
			if t.unlisted > 0 {
				fmt.Fprintf(bw, "   … %d more with errors or warnings\n", t.unlisted)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
