package textreport

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/visible"
)

// ExchangeTable is the table of seam inspect's summary of many captures,
// empty: a row per exchange (ExchangeRow).
func ExchangeTable() *Table {
	return &Table{Cols: []Column{
		{Head: "capture#ex", Shrink: true, ShrinkLast: true, Min: 16, Middle: true}, {Head: "method endpoint", Shrink: true, Min: 12}, {Head: "model", Drop: 6},
		{Head: "st", Right: true}, {Head: "outcome", Drop: 3}, {Head: "ttfb", Right: true, Drop: 4}, {Head: "dur", Right: true},
		{Head: "gap max", Right: true, Drop: 7}, {Head: "stalls", Right: true, Drop: 8}, {Head: "tok/s", Right: true, Drop: 9},
		{Head: "session", Drop: 5}, {Head: "findings"},
	}}
}

// ExchangeRow is the row of ExchangeTable for exchange x of the capture
// at path: status, outcome, timing, gaps, stalls, tokens/s, session and a
// findings badge (I1 W2 E1 and the worst finding's id).
func ExchangeRow(path string, x *inspect.ExchangeReport) []string {
	status, gapMax, stalls, rate := "-", "-", "-", "-"
	if x.Status > 0 {
		status = strconv.Itoa(x.Status)
	}
	if m := x.Metrics; m != nil {
		if m.Gaps > 0 {
			gapMax, stalls = units.Duration(m.GapMax), strconv.Itoa(m.Stalls)
		}
		if m.TokensPerS > 0 {
			rate = fmt.Sprintf("%.0f", m.TokensPerS)
		}
	}
	session := "-"
	if s := x.Session; s != nil {
		session = s.ID + " " + strconv.Itoa(s.Turn)
	}
	var counts [3]int
	for _, f := range x.Findings {
		counts[min(max(int(f.Severity), 0), 2)]++
	}
	var badge []string
	for sev := 2; sev >= 0; sev-- {
		if counts[sev] > 0 {
			badge = append(badge, "IWE"[sev:sev+1]+strconv.Itoa(counts[sev]))
		}
	}
	findings := "ok"
	if len(badge) > 0 {
		findings = strings.Join(badge, " ") + " " + visible.String(x.Findings[0].ID)
	}
	return []string{
		visible.String(filepath.Base(path)) + "#" + strconv.Itoa(x.Ex),
		visible.String(strings.TrimSpace(x.Method + " " + x.Origin + x.Endpoint)),
		orDash(x.Model), status, orDash(string(x.Outcome)),
		units.Duration(x.TTFB), units.Duration(x.Dur), gapMax, stalls, rate, session, findings,
	}
}
