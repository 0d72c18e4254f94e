package query

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/timing"
)

// Row is what a Filter reads of one exchange. Callers fill what they know:
// the CLI from an inspected exchange (RowOf), the TUI from its index and
// the background inspection. Durations are nanoseconds, -1 when unknown.
type Row struct {
	Capture  string
	Ex       int
	Method   string
	URL      string
	Endpoint string
	Host     string
	Model    string
	Protocol string
	Status   int
	Outcome  tape.Outcome
	// Time is when the request was sent, zero when unknown.
	Time    time.Time
	TTFB    int64
	Dur     int64
	Events  int
	Metrics *timing.Metrics
	Session string
	Turn    int
	// Findings are the finding ids and Worst the most serious severity;
	// Inspected is false while they are not known (nothing matches a
	// finding or severity term then).
	Findings  []string
	Worst     inspect.Severity
	Inspected bool
	// Tools names the tool calls of the side clients received.
	Tools []string
	// Text returns the exchange's searchable text (SearchText), for text
	// terms and free words; nil when not known.
	Text func() string
}

// RowOf returns the Row of an inspected exchange of the capture named
// capture, which started at started (zero when unknown); text, when set,
// gives its searchable text.
func RowOf(capture string, started time.Time, reqT int64, x *inspect.ExchangeReport, text func() string) *Row {
	r := &Row{Capture: capture, Ex: x.Ex, Method: x.Method, URL: x.URL, Endpoint: x.Endpoint, Model: x.Model,
		Protocol: string(x.Protocol), Status: x.Status, Outcome: x.Outcome, TTFB: x.TTFB, Dur: x.Dur, Events: x.Events,
		Metrics: x.Metrics, Inspected: true, Text: text}
	if x.Origin != "" {
		_, r.Host, _ = strings.Cut(x.Origin, "://")
	}
	if !started.IsZero() {
		r.Time = started.Add(time.Duration(reqT))
	}
	if x.Session != nil {
		r.Session, r.Turn = x.Session.ID, x.Session.Turn
	}
	for i, f := range x.Findings {
		r.Findings = append(r.Findings, f.ID)
		if i == 0 || f.Severity > r.Worst {
			r.Worst = f.Severity
		}
	}
	for _, s := range x.Sides {
		if s.Side == tape.Client || len(x.Sides) == 1 {
			for _, ch := range s.Message.Choices {
				for _, tc := range ch.ToolCalls {
					r.Tools = append(r.Tools, tc.Name)
				}
			}
		}
	}
	return r
}

// strings returns the values of a text field, and false when the row does
// not know them.
func (r *Row) strings(name string, haystack func() string) ([]string, bool) {
	one := func(s string) ([]string, bool) { return []string{s}, true }
	switch name {
	case "model":
		return one(r.Model)
	case "endpoint":
		return one(r.Endpoint)
	case "url":
		return one(r.URL)
	case "method":
		return one(r.Method)
	case "host":
		return one(r.Host)
	case "protocol":
		return one(r.Protocol)
	case "outcome":
		if r.Outcome == "" {
			return one("")
		}
		if r.Outcome.Success() {
			return []string{string(r.Outcome), "ok"}, true
		}
		return []string{string(r.Outcome), "fail"}, true
	case "finding":
		return r.Findings, r.Inspected
	case "tool":
		return r.Tools, r.Inspected
	case "text":
		return one(haystack())
	case "capture":
		return one(r.Capture)
	case "session":
		return one(r.Session)
	case "day":
		if r.Time.IsZero() {
			return nil, false
		}
		return one(r.Time.UTC().Format("2006-01-02"))
	}
	return nil, false
}

// number returns the value of a numeric field, and false when the row
// does not know it.
func (r *Row) number(name string) (float64, bool) {
	dur := func(ns int64) (float64, bool) { return float64(ns), ns >= 0 }
	switch name {
	case "status":
		return float64(r.Status), r.Status > 0
	case "ex":
		return float64(r.Ex), true
	case "turn":
		return float64(r.Turn), r.Turn > 0
	case "severity":
		if len(r.Findings) == 0 {
			return -1, r.Inspected // below info: no finding at all
		}
		return float64(r.Worst), true
	case "ttfb":
		return dur(r.TTFB)
	case "duration":
		return dur(r.Dur)
	case "events":
		return float64(r.Events), r.Inspected
	}
	return r.metric(name)
}

// metric returns the value of a field read from the row's metrics, and
// false when the row does not know it.
func (r *Row) metric(name string) (float64, bool) {
	m := r.Metrics
	if m == nil {
		return math.NaN(), false
	}
	switch name {
	case "gap.p50":
		return float64(m.GapP50), m.Gaps > 0
	case "gap.p99":
		return float64(m.GapP99), m.Gaps > 0
	case "gap.max":
		return float64(m.GapMax), m.Gaps > 0
	case "stalls":
		return float64(m.Stalls), true
	case "tokens.in":
		return float64(m.TokensIn), m.TokensIn > 0 || m.TokensOut > 0
	case "tokens.out":
		return float64(m.TokensOut), m.TokensIn > 0 || m.TokensOut > 0
	case "tps":
		return m.TokensPerS, m.TokensPerS > 0
	}
	return math.NaN(), false
}

// rowWords is the text of a row's columns a free word also matches: its
// capture, number, method, URL, model, status, outcome, session and
// finding ids, lower-cased.
func rowWords(r *Row) string {
	return strings.ToLower(strings.Join([]string{
		filepath.Base(r.Capture), strconv.Itoa(r.Ex), r.Method, r.URL, r.Model, strconv.Itoa(r.Status),
		string(r.Outcome), r.Session, strings.Join(r.Findings, " "),
	}, " "))
}
