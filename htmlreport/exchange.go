package htmlreport

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/tape"
)

type exView struct {
	Ex                           int
	Anchor                       string
	Method, URL, Model, Protocol string
	Outcome, TTFB, Dur           string
	Status, Events               int
	Verdict                      verdictView
	Chart                        *chartView
	Findings                     []findingView
	FindingsMore                 int
	Diffs                        []diffView
	Sides                        []sideView
	Disagreements                []disagreeView
	Requests                     []requestView
	Notes                        []string
	ErrorCount, WarnCount, Infos int
	WebSocket                    *wsView
}

type verdictView struct {
	// Level is "error", "warn", "info" or "ok": the worst severity.
	Level   string
	ID      string
	Message string
	Where   string
	// Said is what the provider said when it failed, clipped.
	Said string
}

type findingView struct {
	Severity, ID, Message, Evidence string
	Side, Event, Chunk, Byte, Time  string
}

type sideView struct {
	// Side names the side, and Dir which way it went in a WebSocket
	// exchange.
	Side, Dir                                  string
	Outcome, Error, MsgStatus, MsgError, Usage string
	Status                                     int
	Bytes, Chunks, Events                      string
	TTFB, Dur                                  string
	Stream                                     bool
	// Same is set for the client side when it assembles to exactly what
	// the upstream side does.
	Same    bool
	Choices []choiceView
}

type choiceView struct {
	Index           int
	Many            bool
	Text, Reasoning clipped
	Refusal, Finish string
	ToolCalls       []toolView
	// ServerTools are the tools the provider ran itself (not calls the
	// client answers).
	ServerTools []toolView
}

type toolView struct {
	Index    int
	ID, Name string
	Args     clipped
	Result   string // a server tool's result, as the stream names it
}

type disagreeView struct {
	Field  string
	Values []kv
}

type requestView struct {
	Title, Method, URL string
	// Paired says how a sandwich's upstream request was paired with the
	// client's.
	Paired   string
	Headers  []kv
	Body     clipped
	BodyNote string
}

func buildExchange(x *tape.Exchange, xr *inspect.ExchangeReport, o Options) *exView {
	ev := &exView{
		Ex: xr.Ex, Anchor: "ex-" + strconv.Itoa(xr.Ex), Method: xr.Method, URL: xr.Origin + redactURL(xr.URL),
		Model: xr.Model, Protocol: orDash(string(xr.Protocol)), Outcome: orDash(xr.Result()),
		Status: xr.Status, Events: xr.Events, TTFB: units.Duration(xr.TTFB), Dur: units.Duration(xr.Dur),
		Notes: xr.Notes,
	}
	ev.Verdict = verdict(xr)
	if xr.WebSocket != nil {
		ev.WebSocket = buildWebSocket(xr.WebSocket)
	}
	for i, f := range xr.Findings {
		switch f.Severity {
		case inspect.Error:
			ev.ErrorCount++
		case inspect.Warn:
			ev.WarnCount++
		default:
			ev.Infos++
		}
		if i >= maxFindings {
			ev.FindingsMore++
			continue
		}
		ev.Findings = append(ev.Findings, findingRow(f))
	}
	for _, d := range xr.Diffs {
		ev.Diffs = append(ev.Diffs, buildDiff(d))
	}
	var upstream *sideView
	for _, s := range xr.Sides {
		sv := buildSide(s)
		if xr.WebSocket != nil {
			sv.Dir = direction(s.Side)
		} else if s.Side == tape.Upstream {
			upstream = &sv
		} else if upstream != nil && sameMessage(upstream, &sv) {
			sv.Same, sv.Choices = true, nil
		}
		ev.Sides = append(ev.Sides, sv)
	}
	for _, d := range xr.Disagreements {
		dv := disagreeView{Field: d.Field}
		for _, cv := range d.Values {
			dv.Values = append(dv.Values, kv{cv.Client, clip(cv.Value, maxValue).Text})
		}
		ev.Disagreements = append(ev.Disagreements, dv)
	}
	if x != nil {
		if x.Request != nil {
			ev.Requests = append(ev.Requests, buildRequest("Request", xr.Origin, x.Request))
		}
		if x.UpstreamRequest != nil {
			rv := buildRequest("Request the proxy under test sent upstream", "", x.UpstreamRequest)
			rv.Paired = xr.PairingText()
			ev.Requests = append(ev.Requests, rv)
		}
		ev.Chart = exchangeChart(x, xr, int64(o.Stall))
	}
	return ev
}

// verdict names the worst finding of an exchange and where it was born,
// and what the provider said when it failed.
func verdict(xr *inspect.ExchangeReport) verdictView {
	said := clip(xr.Error, maxValue).Text
	if len(xr.Findings) == 0 {
		return verdictView{Level: "ok", Message: "no findings", Said: said}
	}
	f := xr.Findings[0] // sorted: most serious first
	return verdictView{Level: f.Severity.String(), ID: f.ID, Message: f.Message, Where: f.Pointer.String(), Said: said}
}

func findingRow(f inspect.Finding) findingView {
	fv := findingView{Severity: f.Severity.String(), ID: f.ID, Message: f.Message, Evidence: f.Evidence,
		Side: "–", Event: "–", Chunk: "–", Byte: "–", Time: "–"}
	if f.Pointer.Side != "" {
		fv.Side = string(f.Pointer.Side)
	}
	if p := f.Pointer; p.Event >= 0 {
		fv.Event, fv.Chunk, fv.Byte, fv.Time = strconv.Itoa(p.Event), strconv.Itoa(p.Chunk), strconv.FormatInt(p.Off, 10), units.Duration(p.T)
	}
	return fv
}

func buildSide(s *inspect.SideReport) sideView {
	sv := sideView{
		Side: string(s.Side), Status: s.Status, Outcome: orDash(string(s.Outcome)), Error: s.Error,
		Bytes: commas(s.Bytes), Chunks: commas(int64(s.Chunks)), Events: commas(int64(s.Events)),
		TTFB: units.Duration(s.TTFB), Dur: units.Duration(s.Dur), Stream: s.Stream,
	}
	m := s.Message
	if m == nil {
		return sv
	}
	sv.MsgStatus, sv.MsgError = m.Status, m.Error
	if u := m.Usage; u != nil {
		sv.Usage = fmt.Sprintf("in %d, out %d", u.Input, u.Output)
		if u.Reasoning > 0 {
			sv.Usage += fmt.Sprintf(" (reasoning %d)", u.Reasoning)
		}
	}
	for _, ch := range m.Choices {
		cv := choiceView{Index: ch.Index, Many: len(m.Choices) > 1, Text: clip(ch.Text, maxText),
			Reasoning: clip(ch.Reasoning, maxText), Refusal: ch.Refusal, Finish: orDash(ch.FinishReason)}
		for _, tc := range ch.ToolCalls {
			cv.ToolCalls = append(cv.ToolCalls, toolView{Index: tc.Index, ID: tc.ID, Name: tc.Name, Args: clip(tc.Arguments, maxArgs)})
		}
		for _, st := range ch.ServerTools {
			cv.ServerTools = append(cv.ServerTools, toolView{Index: st.Index, ID: st.ID, Name: st.Name, Args: clip(st.Input, maxArgs), Result: st.Result})
		}
		sv.Choices = append(sv.Choices, cv)
	}
	return sv
}

// sameMessage reports whether two sides show the same assembled output.
func sameMessage(a, b *sideView) bool {
	return a.MsgStatus == b.MsgStatus && a.MsgError == b.MsgError && a.Usage == b.Usage &&
		slices.EqualFunc(a.Choices, b.Choices, func(x, y choiceView) bool {
			return x.Index == y.Index && x.Text == y.Text && x.Reasoning == y.Reasoning &&
				x.Refusal == y.Refusal && x.Finish == y.Finish && slices.Equal(x.ToolCalls, y.ToolCalls) &&
				slices.Equal(x.ServerTools, y.ServerTools)
		})
}

// buildRequest shows a request as the capture holds it, with the
// capture's redaction applied once more (tape.RedactStored: headers and
// the secret fields of the body): a capture written by an older seam or
// assembled by hand shows no credential either.
func buildRequest(title, origin string, q *tape.Request) requestView {
	rv := requestView{Title: title, Method: q.Method, URL: origin + redactURL(q.URL)}
	q, _ = tape.RedactStored(q)
	red := q.Headers
	for _, k := range slices.Sorted(maps.Keys(red)) {
		for _, v := range red[k] {
			rv.Headers = append(rv.Headers, kv{k, clip(v, maxValue).Text})
		}
		if len(red[k]) == 0 {
			rv.Headers = append(rv.Headers, kv{k, ""})
		}
	}
	body, isJSON := prettyJSON(q.Body)
	rv.Body = clip(body, maxBody)
	var notes []string
	switch {
	case len(q.Body) == 0:
		notes = append(notes, "no body")
	case isJSON:
		notes = append(notes, commas(int64(len(q.Body)))+" bytes of JSON, indented")
	default:
		notes = append(notes, commas(int64(len(q.Body)))+" bytes")
	}
	if q.BodyTruncated {
		notes = append(notes, "cut by the recorder")
	}
	rv.BodyNote = strings.Join(notes, ", ")
	return rv
}

// redactURL applies the capture's query redaction to a recorded URL; a URL
// that does not parse keeps only its path.
func redactURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		path, _, hasQuery := strings.Cut(raw, "?")
		if hasQuery {
			return path + "?" + tape.Redacted
		}
		return path
	}
	return tape.RedactURL(u)
}

// exchangeChart gathers what the chart draws for one exchange: each
// side's chunks, and marks where the sides diverge and where the first
// finding was born.
func exchangeChart(x *tape.Exchange, xr *inspect.ExchangeReport, stall int64) *chartView {
	origin := int64(-1)
	if x.Request != nil {
		origin = x.Request.T
	}
	var sides []chartSide
	for _, s := range []tape.Side{tape.Upstream, tape.Client} {
		sd := x.Side(s)
		if len(sd.Chunks) == 0 {
			continue
		}
		cs := chartSide{side: s, name: string(s), lane: string(s), chunks: sd.Chunks, endT: -1}
		if xr.WebSocket != nil {
			cs.name, cs.lane = direction(s), "server"
			if s == tape.Client {
				cs.lane = "client"
			}
		}
		if sd.End != nil {
			cs.endT = sd.End.T
		}
		if origin < 0 || sd.Chunks[0].T < origin {
			origin = sd.Chunks[0].T
		}
		sides = append(sides, cs)
	}
	return buildChart(xr.Ex, origin, sides, chartMarks(xr), stall)
}

// chartMarks returns the divergence (the first hunk of the upstream-vs-
// client diff, else of a streamed-vs-final diff, that points at an event)
// and the first finding that points at an event, merged when they are the
// same event.
func chartMarks(xr *inspect.ExchangeReport) []chartMark {
	var marks []chartMark
	var div *inspect.Pointer
	for _, kind := range []string{inspect.DiffUpstreamClient, inspect.DiffStreamedFinal} {
		for _, d := range xr.Diffs {
			if d.Kind != kind || div != nil {
				continue
			}
			for _, h := range d.Hunks {
				if h.At != nil && h.At.Event >= 0 {
					div = h.At
					break
				}
			}
		}
	}
	if div != nil {
		marks = append(marks, chartMark{side: div.Side, event: div.Event, t: div.T,
			label: fmt.Sprintf("diverges: %s event %d", div.Side, div.Event)})
	}
	for _, f := range xr.Findings {
		p := f.Pointer
		if p.Event < 0 {
			continue
		}
		if div != nil && p.Side == div.Side && p.Event == div.Event {
			marks[0].label = fmt.Sprintf("%s event %d: diverges, %s", p.Side, p.Event, f.ID)
			break
		}
		marks = append(marks, chartMark{side: p.Side, event: p.Event, t: p.T,
			label: fmt.Sprintf("%s: %s event %d", f.ID, p.Side, p.Event)})
		break
	}
	return marks
}
