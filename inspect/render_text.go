package inspect

import (
	"bufio"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/protocol"
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

// TextWriter writes the human report exchange by exchange, so a caller
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
type TextWriter struct {
	// Capture names the capture the exchanges come from, so that a
	// session line names the exchanges of other captures by theirs.
	Capture string

	bw    *bufio.Writer
	paint func(code, s string) string
	// n counts the exchanges written, count them by verdict (Info is ok).
	n     int
	count [3]int
	// listed holds the verdicts of the first exchanges with errors or
	// warnings, unlisted how many more there were.
	listed   [][]string
	unlisted int
}

// NewTextWriter returns a TextWriter writing to w, with ANSI colour when
// color is set.
func NewTextWriter(w io.Writer, color bool) *TextWriter {
	return &TextWriter{bw: bufio.NewWriter(w), paint: painter(color)}
}

// Warnings writes the capture-level warnings, one line each.
func (t *TextWriter) Warnings(ws []string) {
	for _, wn := range ws {
		fmt.Fprintf(t.bw, "warning: %s\n", visible.String(wn))
	}
}

// Exchange writes one exchange's report and flushes it.
func (t *TextWriter) Exchange(x *ExchangeReport) error {
	bw, paint := t.bw, t.paint
	t.n++
	worst := verdictFinding(x)
	v := verdict(x, worst, paint)
	sev := Info
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
		"status " + strconv.Itoa(x.Status), "ttfb " + units.Duration(x.TTFB), "duration " + units.Duration(x.Dur), pluralWord(x.Events, "event")}
	writeItems(bw, "   ", meta)
	if x.Paired != "" && x.Paired != tape.PairedHeader {
		writeItems(bw, "   ", []string{x.PairingText()})
	}
	writeFindings(bw, x.Findings, paint)
	if line := x.Metrics.Line(); line != "" {
		writeItems(bw, "-- timing: ", strings.Split(line, " · "))
	}
	if x.Session != nil {
		writeItems(bw, "-- ", strings.Split(x.Session.line(t.Capture), " · "))
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
func (t *TextWriter) Sessions(ss []*Session) {
	writeSessions(t.bw, ss, t.paint)
}

// Close writes the summary line, and the verdicts of the exchanges that
// had errors or warnings when there were several exchanges, and flushes.
func (t *TextWriter) Close() error {
	bw := t.bw
	switch {
	case t.n == 0:
		fmt.Fprintf(bw, "== no exchanges\n")
	default:
		var parts []string
		for _, c := range []struct {
			sev  Severity
			word string
		}{{Error, "with errors"}, {Warn, "with warnings"}, {Info, "ok"}} {
			if n := t.count[c.sev]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, c.word))
			}
		}
		fmt.Fprintf(bw, "%s %s: %s\n", t.paint(ansiBold, "=="), pluralWord(t.n, "exchange"), strings.Join(parts, ", "))
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

// verdictFinding returns the exchange's worst finding at warn or above (the
// first: findings are sorted by severity), or nil when it has none.
func verdictFinding(x *ExchangeReport) *Finding {
	if len(x.Findings) == 0 || x.Findings[0].Severity < Warn {
		return nil
	}
	return &x.Findings[0]
}

// verdict says what is wrong with x, as the items of one line: its
// number, protocol, status when not 2xx, outcome, and the worst finding
// with where it was born, or ok.
func verdict(x *ExchangeReport, worst *Finding, paint func(code, s string) string) []string {
	parts := []string{fmt.Sprintf("ex %d", x.Ex), string(x.Protocol)}
	if x.Status != 0 && (x.Status < 200 || x.Status > 299) && !failed(x.Status) {
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
func birthplace(p Pointer) string {
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

func severityColor(s Severity) string {
	switch s {
	case Error:
		return ansiRed
	case Warn:
		return ansiYellow
	}
	return ansiDim
}

// writeFindings writes the count of findings per severity and each
// finding: severity, id and message wrapped to the width, where it was
// born, and its evidence.
func writeFindings(w io.Writer, fs []Finding, paint func(code, s string) string) {
	var n [3]int
	for _, f := range fs {
		n[f.Severity]++
	}
	var counts []string
	for _, c := range []struct {
		sev  Severity
		noun string
	}{{Error, "error"}, {Warn, "warning"}, {Info, "info"}} {
		if n[c.sev] > 0 {
			if c.sev == Info {
				counts = append(counts, fmt.Sprintf("%d info", n[c.sev]))
			} else {
				counts = append(counts, pluralWord(n[c.sev], c.noun))
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

// writeSides writes what each side assembled to. The client side, when it
// assembled to the very message the upstream did, says so in its header
// line; when the two texts differ, both are shown from a little before
// the byte where they part.
func writeSides(w io.Writer, sides []*SideReport, paint func(code, s string) string) {
	var up *SideReport
	for _, s := range sides {
		if s.Side == tape.Upstream {
			up = s
		}
	}
	for _, s := range sides {
		m := s.Message
		fmt.Fprintf(w, "-- %s: %s, %s, %s", visible.String(string(s.Side)), pluralWord(s.Chunks, "chunk"), pluralWord(s.Events, "event"), pluralWord(int(s.Bytes), "byte"))
		if s.Encoding != "" {
			fmt.Fprintf(w, " %s (%d decoded)", visible.String(s.Encoding), s.Decoded)
		}
		if s.Framing != framing.Unknown && s.Framing != framing.SSE {
			fmt.Fprintf(w, ", %s", s.Framing)
		}
		if s.Outcome != "" {
			fmt.Fprintf(w, ", %s", visible.String(string(s.Outcome)))
		}
		if m.Status != "" {
			fmt.Fprintf(w, ", status %s", visible.String(m.Status))
		}
		var other *protocol.Message
		for _, o := range sides {
			if o != s {
				other = o.Message
			}
		}
		fmt.Fprintln(w)
		if s.Side == tape.Client && up != nil && sameAssembly(up.Message, m) {
			fmt.Fprintf(w, "   the same message as upstream\n")
			continue
		}
		var otherTexts map[int]string // the other side's text by choice
		if other != nil {
			otherTexts = make(map[int]string, len(other.Choices))
			for _, oc := range other.Choices {
				otherTexts[oc.Index] = oc.Text
			}
		}
		for _, ch := range m.Choices {
			if len(m.Choices) > 1 {
				fmt.Fprintf(w, "   choice %d\n", ch.Index)
			}
			if ch.Reasoning != "" {
				fmt.Fprintf(w, "   reasoning: %s\n", quoteClip(ch.Reasoning, textClip))
			}
			otherText, hasOther := otherTexts[ch.Index]
			if ch.Text != "" || otherText != "" || len(ch.ToolCalls) == 0 {
				fmt.Fprintf(w, "   %s\n", sideText(ch.Text, otherText, hasOther, s.Side == tape.Client))
			}
			if ch.Refusal != "" {
				fmt.Fprintf(w, "   refusal: %s\n", quoteClip(ch.Refusal, textClip))
			}
			for _, tc := range ch.ToolCalls {
				fmt.Fprintf(w, "   tool %d %s %s #%s\n", tc.Index, visible.String(tc.Name), visible.String(clipCount(tc.Arguments, argsClip)), visible.String(tc.ID))
			}
			for _, st := range ch.ServerTools {
				result := ""
				if st.Result != "" {
					result = ": " + visible.String(st.Result)
				}
				fmt.Fprintf(w, "   server tool %s %s #%s (run by the provider%s)\n", visible.String(st.Name), visible.String(clipCount(st.Input, argsClip)), visible.String(st.ID), result)
			}
			fmt.Fprintf(w, "   finish: %s\n", orDash(ch.FinishReason))
		}
		if m.Usage != nil {
			fmt.Fprintf(w, "   usage: in %d, out %d", m.Usage.Input, m.Usage.Output)
			if m.Usage.Reasoning > 0 {
				fmt.Fprintf(w, " (reasoning %d)", m.Usage.Reasoning)
			}
			fmt.Fprintln(w)
		}
		if m.Error != "" {
			fmt.Fprintf(w, "   error: %s\n", paint(ansiRed, visible.String(m.Error)))
		}
	}
}

// sideText renders one side's text. Alone, or beside an equal text on the
// upstream side, it is its start; on the client side beside an equal
// upstream text it is said to be the same; beside a different text it is
// the text from a little before the first byte where the two differ, so
// the two lines show where they part instead of the same start twice.
func sideText(s, other string, hasOther, client bool) string {
	size := pluralWord(len(s), "byte")
	switch {
	case !hasOther:
		if len(s) > textClip {
			return fmt.Sprintf("text (%s): %s", size, strconv.Quote(excerpt.Clip(s, textClip)))
		}
		return "text: " + strconv.Quote(s)
	case s == other && client:
		return fmt.Sprintf("text: the same as upstream (%s)", size)
	case s == other:
		return sideText(s, "", false, client)
	}
	at := commonPrefix(s, other)
	from := max(0, at-textBefore)
	for from > 0 && !utf8.RuneStart(s[from]) {
		from--
	}
	text := strconv.Quote(excerpt.Clip(s[from:], textClip))
	if from > 0 {
		text = "…" + text
	}
	return fmt.Sprintf("text (%s; differs from byte %d): %s", size, at, text)
}

// sameAssembly reports whether two sides assembled to the same message:
// the same choices, usage, status and error.
func sameAssembly(a, b *protocol.Message) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Status == b.Status && a.Error == b.Error && reflect.DeepEqual(a.Usage, b.Usage) && sameChoices(a.Choices, b.Choices)
}

// sameChoices compares what each choice says, not where its events were.
func sameChoices(a, b []protocol.Choice) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Index != y.Index || x.Role != y.Role || x.Text != y.Text || x.Reasoning != y.Reasoning ||
			x.Refusal != y.Refusal || x.FinishReason != y.FinishReason || !sameCalls(x.ToolCalls, y.ToolCalls) ||
			!slices.EqualFunc(x.ServerTools, y.ServerTools, sameServerTool) {
			return false
		}
	}
	return true
}

// sameServerTool compares what two server tool calls say, not the events
// they were born at.
func sameServerTool(x, y protocol.ServerTool) bool {
	x.Born, y.Born = protocol.Born{}, protocol.Born{}
	return x == y
}

// sameCalls compares what tool calls say (index, id, name, arguments,
// form and signature), not the events they were born at.
func sameCalls(a, b []protocol.ToolCall) bool {
	return slices.EqualFunc(a, b, func(x, y protocol.ToolCall) bool {
		x.Born, y.Born = protocol.Born{}, protocol.Born{}
		return x == y
	})
}

// quoteClip quotes the first n bytes of s, saying how many bytes it has
// when it had to cut.
func quoteClip(s string, n int) string {
	if len(s) <= n {
		return strconv.Quote(s)
	}
	return strconv.Quote(excerpt.Clip(s, n)) + " (" + pluralWord(len(s), "byte") + ")"
}

// clipCount is excerpt.Clip saying how many bytes the whole has when it
// cuts.
func clipCount(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return excerpt.Clip(s, n) + " (" + pluralWord(len(s), "byte") + ")"
}

// ShortenDiff returns d with at most hunks hunks (HunksCut counts the
// others) and every run of more than keep+2 added or removed
// lines cut to its first keep lines, a line counting the lines left out,
// and its last line. d itself is not changed.
func ShortenDiff(d *Diff, keep, hunks int) *Diff {
	out := *d
	out.Hunks = nil
	for i, h := range d.Hunks {
		if i == hunks {
			out.HunksCut = len(d.Hunks) - hunks
			break
		}
		var lines []DiffLine
		for j := 0; j < len(h.Lines); {
			k := j
			for k < len(h.Lines) && h.Lines[k].Op == h.Lines[j].Op {
				k++
			}
			run := h.Lines[j:k]
			if run[0].Op != " " && len(run) > keep+2 {
				lines = append(lines, run[:keep]...)
				lines = append(lines, DiffLine{Op: run[0].Op, Text: "… " + more(len(run)-keep-1, "line")})
				lines = append(lines, run[len(run)-1])
			} else {
				lines = append(lines, run...)
			}
			j = k
		}
		h.Lines = lines
		out.Hunks = append(out.Hunks, h)
	}
	return &out
}

// writeItems writes items joined by " · " after first, breaking lines at
// textWidth between items only, every further line indented three columns
// past first.
func writeItems(w io.Writer, first string, items []string) {
	indent := strings.Repeat(" ", columns(first)+3)
	line, col := first, columns(first)
	for i, it := range items {
		n := columns(it)
		switch {
		case i == 0:
		case col+3+n > textWidth:
			fmt.Fprintln(w, line+" ·")
			line, col = indent, len(indent)
		default:
			line += " · "
			col += 3
		}
		line += it
		col += n
	}
	fmt.Fprintln(w, line)
}

// columns counts the runes of s that are not part of an ANSI colour
// sequence (the report's own: ESC [ ... m), a column each.
func columns(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			if j := strings.IndexByte(s[i:], 'm'); j >= 0 {
				i += j + 1
				continue
			}
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return n
}

// writeWrapped writes text after first, wrapped to textWidth with every
// further line starting with indent.
func writeWrapped(w io.Writer, first, text, indent string) {
	fmt.Fprint(w, first)
	writeWrappedAt(w, utf8.RuneCountInString(first), text, indent)
}

// writeWrappedAt continues a line already col columns wide: it writes
// text word by word, breaking before a word that would pass textWidth (a
// longer word stands alone) and starting each further line with indent,
// and ends the last line.
func writeWrappedAt(w io.Writer, col int, text, indent string) {
	start := col
	for _, word := range strings.Fields(text) {
		n := utf8.RuneCountInString(word)
		if col > start && col+1+n > textWidth {
			fmt.Fprintf(w, "\n%s", indent)
			col = utf8.RuneCountInString(indent)
			start = col
		} else if col > start {
			fmt.Fprint(w, " ")
			col++
		}
		fmt.Fprint(w, word)
		col += n
	}
	fmt.Fprintln(w)
}

// more returns "1 more line", "2 more lines".
func more(n int, noun string) string {
	return strings.Replace(pluralWord(n, noun), " ", " more ", 1)
}
