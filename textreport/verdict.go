package textreport

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/visible"
)

// verdictFinding returns the exchange's worst finding at warn or above (the
// first: findings are sorted by severity), or nil when it has none.
func verdictFinding(x *inspect.ExchangeReport) *inspect.Finding {
	if len(x.Findings) == 0 || x.Findings[0].Severity < inspect.Warn {
		return nil
	}
	return &x.Findings[0]
}

// verdict says what is wrong with x, as the items of one line: its
// number, protocol, status when not 2xx, outcome, and the worst finding
// with where it was born, or ok.
func verdict(x *inspect.ExchangeReport, worst *inspect.Finding, paint func(code, s string) string) []string {
	parts := []string{fmt.Sprintf("ex %d", x.Ex), string(x.Protocol)}
	if x.Status != 0 && (x.Status < 200 || x.Status > 299) && x.Status < 400 {
		parts = append(parts, "status "+strconv.Itoa(x.Status))
	}
	parts = append(parts, orDash(x.Result()))
	if worst == nil {
		parts = append(parts, paint(ansiGreen, "ok"))
	} else {
		parts = append(parts, paint(severityColor(worst.Severity), worst.Severity.String())+" "+visible.String(worst.ID)+birthplace(worst.Pointer))
	}
	if x.Error != "" {
		parts = append(parts, `said "`+visible.String(excerpt.Clip(x.Error, verdictSaid))+`"`)
	}
	return parts
}

// birthplace says briefly where a finding was born, for a verdict line: " at
// client event 282", " at upstream chunk 1", " on the upstream side", or
// "".
func birthplace(p inspect.Pointer) string {
	switch {
	case p.Side != "" && p.Event >= 0:
		return fmt.Sprintf(" at %s event %d", visible.String(string(p.Side)), p.Event)
	case p.Side != "" && p.Chunk >= 0:
		return fmt.Sprintf(" at %s chunk %d", visible.String(string(p.Side)), p.Chunk)
	case p.Side != "":
		return " on the " + visible.String(string(p.Side)) + " side"
	}
	return ""
}

func severityColor(s inspect.Severity) string {
	switch s {
	case inspect.Error:
		return ansiRed
	case inspect.Warn:
		return ansiYellow
	}
	return ansiDim
}

// writeFindings writes the count of findings per severity and each
// finding: severity, id and message wrapped to the width, where it was
// born, and its evidence.
func writeFindings(w io.Writer, fs []inspect.Finding, paint func(code, s string) string) {
	var n [3]int
	for _, f := range fs {
		n[f.Severity]++
	}
	var counts []string
	for _, c := range []struct {
		sev  inspect.Severity
		noun string
	}{{inspect.Error, "error"}, {inspect.Warn, "warning"}, {inspect.Info, "info"}} {
		if n[c.sev] > 0 {
			if c.sev == inspect.Info {
				counts = append(counts, fmt.Sprintf("%d info", n[c.sev]))
			} else {
				counts = append(counts, units.Count(n[c.sev], c.noun))
			}
		}
	}
	if len(counts) == 0 {
		counts = []string{"none"}
	}
	fmt.Fprintf(w, "-- findings: %s\n", strings.Join(counts, ", "))
	for _, f := range fs {
		id := visible.String(f.ID)
		fmt.Fprintf(w, "   %s %s  ", paint(severityColor(f.Severity), fmt.Sprintf("%-5s", f.Severity)), id)
		writeWrappedAt(w, 3+5+1+utf8.RuneCountInString(id)+2, visible.String(f.Message), "         ")
		fmt.Fprintf(w, "         at %s\n", visible.String(f.Pointer.String()))
		if f.Peer != nil {
			fmt.Fprintf(w, "         vs %s\n", visible.String(f.Peer.String()))
		}
		if f.Evidence != "" {
			fmt.Fprintf(w, "         evidence: %s\n", quoteClip(f.Evidence, evidenceClip))
		}
	}
}
