package htmlreport

import (
	"bufio"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"maps"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/tape"
)

// DefaultStall is the gap without bytes that the chart shades as a stall
// unless told otherwise: a quarter of a second is when a streamed answer
// visibly stops.
const DefaultStall = 250 * time.Millisecond

// Options tune Write.
type Options struct {
	// Version is the seam version the page names as its generator.
	Version string
	// Stall is the gap without bytes on a side beyond which the chart
	// shades a stall; 0 shades none.
	Stall time.Duration
}

// Limits on what one page shows, so that a capture of any size makes a
// page a browser opens at once. Everything cut says how much was left out.
const (
	maxText      = 16 << 10 // assembled text per choice
	maxArgs      = 4 << 10  // tool call arguments
	maxBody      = 64 << 10 // request body
	maxValue     = 1 << 10  // a header value, a client's value
	maxFindings  = 300      // findings per exchange
	maxDiffLines = 600      // lines per diff
	maxLineHead  = 200      // diff line: bytes kept before the change
	maxLineMid   = 2000     // diff line: bytes of the change
	maxLineTail  = 400      // diff line: bytes kept after the change
)

//go:embed page.html.tmpl
var pageSource string

//go:embed style.css
var styleSheet string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"vis":    func(s string) []piece { return pieces(s, false) },
	"pre":    func(s string) []piece { return pieces(s, true) },
	"commas": func(n int) string { return commas(int64(n)) },
}).Parse(pageSource))

// contentPolicy forbids the page every fetch, script, frame and form: it
// may only apply its own style sheet, named by hash.
var contentPolicy = func() string {
	sum := sha256.Sum256([]byte(styleSheet))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; base-uri 'none'; form-action 'none'"
}()

// Write renders the report r of capture c as one self-contained HTML page:
// inline style and SVG, no script, no fetch. The same capture, report and
// options always give the same bytes.
func Write(w io.Writer, c *tape.Capture, r *inspect.Report, o Options) error {
	v := buildPage(c, r, o)
	bw := bufio.NewWriter(w)
	if err := page.Execute(bw, v); err != nil {
		return fmt.Errorf("render report: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

type pageView struct {
	Title     string
	CSP       string
	CSS       template.CSS
	Generator string
	Capture   captureView
	Warnings  []string
	Index     []indexRow
	Exchanges []*exView
	// Of is the number of exchanges in the capture, when the report shows
	// only some of them.
	Of int
}

type captureView struct {
	Name, ID, Seam, Started, Upstream, Profile string
	Switches                                   []kv
	Notes                                      []string
}

type kv struct{ K, V string }

type indexRow struct {
	Ex                                int
	Anchor                            string
	Method, Endpoint, Model, Protocol string
	Status                            int
	Outcome                           string
	Verdict                           verdictView
}

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
}

type verdictView struct {
	// Level is "error", "warn", "info" or "ok": the worst severity.
	Level   string
	ID      string
	Message string
	Where   string
}

type findingView struct {
	Severity, ID, Message, Evidence string
	Side, Event, Chunk, Byte, Time  string
}

type diffView struct {
	Kind, Title, A, B string
	Equal             bool
	Hunks             []hunkView
	// Elided counts the lines not shown, in ElidedHunks hunks.
	Elided, ElidedHunks int
}

type hunkView struct {
	Where string
	Lines []lineView
}

type lineView struct {
	Op, Class string
	// Head, Mid and Tail are the line cut around the change it pairs
	// with (Mid emphasised); HeadCut and TailCut count bytes left out.
	Head, Mid, Tail  string
	Emph             bool
	HeadCut, TailCut int
}

type sideView struct {
	Side, Outcome, Error, MsgStatus, MsgError, Usage string
	Status                                           int
	Bytes, Chunks, Events                            string
	TTFB, Dur                                        string
	Stream                                           bool
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
}

type toolView struct {
	Index    int
	ID, Name string
	Args     clipped
}

type disagreeView struct {
	Field  string
	Values []kv
}

type requestView struct {
	Title, Method, URL string
	Headers            []kv
	Body               clipped
	BodyNote           string
}

func buildPage(c *tape.Capture, r *inspect.Report, o Options) *pageView {
	name := filepath.Base(c.Name)
	v := &pageView{
		Title:     "seam report: " + name,
		CSP:       contentPolicy,
		CSS:       template.CSS(styleSheet), // a constant of this package, never capture text
		Generator: strings.TrimSpace("seam " + o.Version),
	}
	// Warnings name the file as it was given; the page names it by its
	// base name only, so it shows no directory of the machine it was made on.
	for _, w := range r.Warnings {
		if c.Name != name {
			w = strings.ReplaceAll(w, c.Name, name)
		}
		v.Warnings = append(v.Warnings, w)
	}
	h := c.Header
	v.Capture = captureView{Name: name, ID: h.ID, Seam: h.Seam, Upstream: h.Upstream, Profile: h.Engine.Profile}
	if !h.Started.IsZero() {
		v.Capture.Started = h.Started.UTC().Format(time.RFC3339)
	}
	for _, k := range slices.Sorted(maps.Keys(h.Engine.Switches)) {
		v.Capture.Switches = append(v.Capture.Switches, kv{k, h.Engine.Switches[k]})
	}
	for _, n := range c.Notes {
		v.Capture.Notes = append(v.Capture.Notes, n.Text)
	}
	byEx := map[int]*tape.Exchange{}
	for _, x := range c.Exchanges {
		byEx[x.Ex] = x
	}
	for _, xr := range r.Exchanges {
		ev := buildExchange(byEx[xr.Ex], xr, o)
		v.Exchanges = append(v.Exchanges, ev)
		v.Index = append(v.Index, indexRow{
			Ex: ev.Ex, Anchor: ev.Anchor, Method: xr.Method, Endpoint: xr.Endpoint, Model: xr.Model,
			Protocol: ev.Protocol, Status: xr.Status, Outcome: ev.Outcome, Verdict: ev.Verdict,
		})
	}
	if len(r.Exchanges) < len(c.Exchanges) {
		v.Of = len(c.Exchanges)
	}
	return v
}

func buildExchange(x *tape.Exchange, xr *inspect.ExchangeReport, o Options) *exView {
	ev := &exView{
		Ex: xr.Ex, Anchor: "ex-" + strconv.Itoa(xr.Ex), Method: xr.Method, URL: redactURL(xr.URL),
		Model: xr.Model, Protocol: orDash(string(xr.Protocol)), Outcome: orDash(string(xr.Outcome)),
		Status: xr.Status, Events: xr.Events, TTFB: inspect.FormatDuration(xr.TTFB), Dur: inspect.FormatDuration(xr.Dur),
		Notes: xr.Notes,
	}
	ev.Verdict = verdict(xr)
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
		if s.Side == tape.Upstream {
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
			ev.Requests = append(ev.Requests, buildRequest("Request", x.Request))
		}
		if x.UpstreamRequest != nil {
			ev.Requests = append(ev.Requests, buildRequest("Request the proxy under test sent upstream", x.UpstreamRequest))
		}
		ev.Chart = exchangeChart(x, xr, int64(o.Stall))
	}
	return ev
}

// verdict names the worst finding of an exchange and where it was born.
func verdict(xr *inspect.ExchangeReport) verdictView {
	if len(xr.Findings) == 0 {
		return verdictView{Level: "ok", Message: "no findings"}
	}
	f := xr.Findings[0] // sorted: most serious first
	return verdictView{Level: f.Severity.String(), ID: f.ID, Message: f.Message, Where: f.Pointer.String()}
}

func findingRow(f inspect.Finding) findingView {
	fv := findingView{Severity: f.Severity.String(), ID: f.ID, Message: f.Message, Evidence: f.Evidence,
		Side: "–", Event: "–", Chunk: "–", Byte: "–", Time: "–"}
	if f.Pointer.Side != "" {
		fv.Side = string(f.Pointer.Side)
	}
	if p := f.Pointer; p.Event >= 0 {
		fv.Event, fv.Chunk, fv.Byte, fv.Time = strconv.Itoa(p.Event), strconv.Itoa(p.Chunk), strconv.FormatInt(p.Off, 10), inspect.FormatDuration(p.T)
	}
	return fv
}

// diffTitles names the diff kinds in words.
var diffTitles = map[string]string{
	inspect.DiffUpstreamClient: "Upstream vs client",
	inspect.DiffStreamedFinal:  "Streamed vs final",
	inspect.DiffExchanges:      "Exchanges",
}

func buildDiff(d *inspect.Diff) diffView {
	dv := diffView{Kind: d.Kind, Title: d.Kind, A: d.A, B: d.B, Equal: d.Equal}
	if t, ok := diffTitles[d.Kind]; ok {
		dv.Title = t
	}
	shown := 0
	for _, h := range d.Hunks {
		if shown >= maxDiffLines {
			dv.Elided += len(h.Lines)
			dv.ElidedHunks++
			continue
		}
		hv := hunkView{Where: fmt.Sprintf("a byte %d, b byte %d", h.AOff, h.BOff)}
		if h.At != nil {
			hv.Where = h.At.String() + " · " + hv.Where
		}
		pair := pairs(h.Lines)
		for i, l := range h.Lines {
			if shown >= maxDiffLines {
				dv.Elided++
				continue
			}
			shown++
			var other *inspect.DiffLine
			if pair[i] >= 0 {
				other = &h.Lines[pair[i]]
			}
			hv.Lines = append(hv.Lines, buildLine(l, other))
		}
		dv.Hunks = append(dv.Hunks, hv)
	}
	return dv
}

// pairs returns, for each line of a hunk, the line it is compared with for
// emphasis (the k-th "-" with the k-th "+"), or -1.
func pairs(lines []inspect.DiffLine) []int {
	out := make([]int, len(lines))
	var dels, adds []int
	for i, l := range lines {
		out[i] = -1
		switch l.Op {
		case "-":
			dels = append(dels, i)
		case "+":
			adds = append(adds, i)
		}
	}
	for k := range min(len(dels), len(adds)) {
		out[dels[k]], out[adds[k]] = adds[k], dels[k]
	}
	return out
}

// buildLine cuts one diff line for the page: when it pairs with a line of
// the other text, the bytes where the two differ are emphasised and the
// common head and tail are shortened around them.
func buildLine(l inspect.DiffLine, other *inspect.DiffLine) lineView {
	lv := lineView{Op: l.Op, Class: "ctx"}
	switch l.Op {
	case "-":
		lv.Class = "del"
	case "+":
		lv.Class = "add"
	}
	if other == nil || l.Op == " " {
		c := clip(l.Text, maxLineHead+maxLineMid+maxLineTail)
		lv.Head, lv.TailCut = c.Text, c.More
		return lv
	}
	pre, suf := commonAffixes(l.Text, other.Text)
	lv.Head, lv.HeadCut = clipLeft(l.Text[:pre], maxLineHead)
	mid := clip(l.Text[pre:len(l.Text)-suf], maxLineMid)
	lv.Mid, lv.Emph = mid.Text, true
	tail := clip(l.Text[len(l.Text)-suf:], maxLineTail)
	lv.Tail, lv.TailCut = tail.Text, mid.More+tail.More
	if mid.More > 0 {
		// The change itself was cut: what follows it is not shown either.
		lv.Tail, lv.TailCut = "", len(l.Text)-pre-len(mid.Text)
	}
	return lv
}

func buildSide(s *inspect.SideReport) sideView {
	sv := sideView{
		Side: string(s.Side), Status: s.Status, Outcome: orDash(string(s.Outcome)), Error: s.Error,
		Bytes: commas(s.Bytes), Chunks: commas(int64(s.Chunks)), Events: commas(int64(s.Events)),
		TTFB: inspect.FormatDuration(s.TTFB), Dur: inspect.FormatDuration(s.Dur), Stream: s.Stream,
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
		sv.Choices = append(sv.Choices, cv)
	}
	return sv
}

// sameMessage reports whether two sides show the same assembled output.
func sameMessage(a, b *sideView) bool {
	return a.MsgStatus == b.MsgStatus && a.MsgError == b.MsgError && a.Usage == b.Usage &&
		slices.EqualFunc(a.Choices, b.Choices, func(x, y choiceView) bool {
			return x.Index == y.Index && x.Text == y.Text && x.Reasoning == y.Reasoning &&
				x.Refusal == y.Refusal && x.Finish == y.Finish && slices.Equal(x.ToolCalls, y.ToolCalls)
		})
}

// buildRequest shows a request as the capture holds it, with the
// capture's redaction applied once more: a capture written by an older
// seam or assembled by hand shows no credential either.
func buildRequest(title string, q *tape.Request) requestView {
	rv := requestView{Title: title, Method: q.Method, URL: redactURL(q.URL)}
	hh := http.Header{}
	for k, vs := range q.Headers {
		hh[k] = vs
	}
	red := tape.RedactHeaders(hh)
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
		cs := chartSide{side: s, chunks: sd.Chunks, endT: -1}
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

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
