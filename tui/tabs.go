package tui

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/tape"
)

// doc returns the content of tab t, building it when needed.
func (m *model) doc(t int) doc {
	d := m.det
	if d == nil || d.rec == nil {
		return staticDoc(nil)
	}
	if d.docs[t] == nil {
		switch t {
		case tabDiff:
			d.docs[t] = m.buildDiff()
		case tabTimeline:
			d.docs[t] = m.timelineDoc()
		case tabFindings:
			d.docs[t] = m.findingsDoc()
		case tabRequest:
			d.docs[t] = m.requestDoc()
		case tabRaw:
			d.docs[t] = m.rawDoc()
		}
	}
	return d.docs[t]
}

// severityRun renders a severity as a letter badge and its name.
func (m *model) severityRun(s inspect.Severity) run {
	switch s {
	case inspect.Error:
		return sty("E error", m.st.errBadge)
	case inspect.Warn:
		return sty("W warn ", m.st.warnBadge)
	}
	return sty("I info ", m.st.infoBadge)
}

func (m *model) findingsDoc() doc {
	d, st := m.det, m.st
	v := d.view()
	var out staticDoc
	fs := v.rep.Findings
	if len(fs) == 0 {
		out = append(out, newLine(sty("no findings", st.okText)))
	}
	for i, f := range fs {
		l1 := newLine(m.severityRun(f.Severity), txt(" "), sty(clean(f.ID), st.bold), txt("  "+clean(f.Message)))
		at := "exchange"
		if strings.HasPrefix(f.ID, "req.") {
			at = "request"
		}
		if f.Pointer.Side != "" {
			at = clean(strings.TrimPrefix(f.Pointer.String(), fmt.Sprintf("ex %d ", f.Pointer.Ex)))
		}
		if f.Peer != nil {
			// A two-sided finding: where its counterpart was born.
			at += " · vs " + clean(strings.TrimPrefix(f.Peer.String(), fmt.Sprintf("ex %d ", f.Peer.Ex)))
		}
		l2 := newLine(sty("    at "+at, st.dim))
		var l3 docLine
		if f.Evidence != "" {
			l3 = newLine(append([]run{sty("    evidence ", st.dim)}, visibleRuns(f.Evidence, txt(""), st.marker, true)...)...)
		}
		p := f.Pointer
		for _, l := range []*docLine{&l1, &l2, &l3} {
			l.finding = i
			if p.Side != "" {
				l.ptr = &p
			}
		}
		out = append(out, l1, l2)
		if f.Evidence != "" {
			out = append(out, l3)
		}
	}
	return out
}

func (m *model) requestDoc() doc {
	d, st := m.det, m.st
	v := d.view()
	var out staticDoc
	req, rv := v.x.Request, v.req
	if req == nil || rv == nil {
		return staticDoc{newLine(sty("no request was recorded for this exchange", st.dim))}
	}
	out = append(out, newLine(sty(clean(req.Method+" "+requestURL(req)), st.header), sty(fmt.Sprintf("   t=%s  %d bytes", units.Duration(req.T), len(req.Body)), st.dim)))
	if req.BodyTruncated {
		out = append(out, newLine(sty("body truncated by the recorder", st.notice)))
	}
	for _, k := range slices.Sorted(maps.Keys(req.Headers)) {
		out = append(out, newLine(sty("  "+clean(k)+": ", st.dim), txt(clean(strings.Join(req.Headers[k], ", ")))))
	}
	for _, n := range v.rep.Notes {
		out = append(out, newLine(sty("  note: ", st.notice), txt(clean(n))))
	}
	// Request-lint findings, inline before the messages they concern.
	for i, f := range v.rep.Findings {
		if !strings.HasPrefix(f.ID, "req.") && !strings.HasPrefix(f.ID, "schema.") {
			continue
		}
		l := newLine(txt("  "), m.severityRun(f.Severity), txt(" "), sty(clean(f.ID), st.bold), txt("  "+clean(f.Message)))
		l.finding = i
		out = append(out, l)
	}
	if rd := v.rep.RequestDiff; rd != nil {
		// A sandwich recording: what the proxy under test changed on the
		// request's way upstream.
		out = append(out, newLine(), newLine(sty("━━ client's request vs sent upstream by the proxy under test", st.header)))
		for _, l := range rd.Lines() {
			out = append(out, newLine(append([]run{txt("  ")}, visibleRuns(l, txt(""), st.marker, true)...)...))
		}
	}
	switch rv.list {
	case "messages":
		out = append(out, newLine(), newLine(sty(fmt.Sprintf("━━ messages (%d)", len(rv.items)), st.header)))
	case "input":
		out = append(out, newLine(), newLine(sty(fmt.Sprintf("━━ input (%d items)", len(rv.items)), st.header)))
	}
	for i, it := range rv.items {
		out = append(out, m.messageLines(i, it)...)
	}
	if rv.tools != nil {
		out = append(out, newLine(sty("  tools: ", st.dim), txt(strings.Join(rv.tools, ", "))))
	}
	out = append(out, newLine(), newLine(sty("━━ body", st.header)))
	out = appendBody(out, rv.body, st)
	if up := v.x.UpstreamRequest; up != nil {
		// A sandwich recording: the request as the proxy under test sent it.
		out = append(out, newLine(), newLine(sty("━━ as the proxy under test sent it upstream: "+clean(up.Method+" "+up.URL), st.header)))
		out = appendBody(out, rv.upBody, st)
	}
	return out
}

// appendBody adds a body's lines with invisible characters made visible.
func appendBody(out staticDoc, lines []string, st styles) staticDoc {
	for _, l := range lines {
		out = append(out, newLine(visibleRuns(l, txt(""), st.marker, false)...))
	}
	return out
}

// messageLines paints one request message: role, a preview of its
// content, and its tool calls or the call it answers.
func (m *model) messageLines(i int, it reqItem) []docLine {
	st := m.st
	roleSt := st.bold
	if it.role == "tool" || it.role == "function_call_output" {
		roleSt = st.boundary
	}
	head := []run{txt(fmt.Sprintf("  [%d] ", i)), sty(it.role, roleSt)}
	if it.toolCallID != "" {
		head = append(head, sty(" ("+it.toolCallID+")", st.dim))
	}
	head = append(head, txt(": "))
	head = append(head, visibleRuns(it.text, txt(""), st.marker, true)...)
	out := []docLine{newLine(head...)}
	for _, tc := range it.toolCalls {
		out = append(out, newLine(sty("      → tool call ", st.boundary),
			txt(fmt.Sprintf("%s %s(%s)", tc.id, tc.name, escapeInline(tc.args)))))
	}
	return out
}

// rawDoc shows the raw bytes of the chunk or event selected in the
// timeline (the first client chunk by default), escapes visible.
func (m *model) rawDoc() doc {
	d, st := m.det, m.st
	v := d.view()
	t := d.rawTarget()
	chunks := v.chunks[t.side]
	decoded := ""
	if enc := v.encoding[t.side]; enc != "" {
		decoded = " · decoded from " + clean(enc)
	}
	var data []byte
	var head string
	if ws, ok := v.wsData(t); ok {
		return m.wsRawDoc(t, ws)
	}
	if t.event {
		evs := v.events[t.side]
		if t.idx >= len(evs) {
			return staticDoc{newLine(sty("no such event", st.dim))}
		}
		e := evs[t.idx]
		data = sliceBody(chunks, e.Off, e.End)
		head = fmt.Sprintf("%s event %d · type %s · chunks %d–%d · bytes %d–%d · t=%s%s", t.side, t.idx, cmp.Or(clean(e.Name), "message (default)"), e.Chunk, e.EndChunk, e.Off, e.End, units.Duration(e.T), decoded)
	} else {
		if t.idx >= len(chunks) {
			return staticDoc{newLine(sty(fmt.Sprintf("no %s chunks", t.side), st.dim))}
		}
		c := chunks[t.idx]
		data = c.Data
		head = fmt.Sprintf("%s chunk %d of %d · off %d · %d bytes · t=%s%s", t.side, t.idx, len(chunks), c.Off, len(c.Data), units.Duration(c.T), decoded)
	}
	out := staticDoc{newLine(sty(head, st.header)), newLine(sty("␍ CR  ␊ LF  ⇥ tab  ␛ ESC  · trailing space  ⟨U+…⟩ hidden  ⟨\\xNN⟩ not UTF-8", st.dim))}
	// Long lines wrap: raw bytes are never cut off.
	w := max(m.w-4, 10)
	for _, l := range splitKeep(string(data)) {
		for _, part := range wrapRuns(visibleRuns(l, txt(""), st.marker, false), w) {
			out = append(out, newLine(part...))
		}
	}
	return out
}

// wrapRuns splits runs into lines of at most w cells, breaking anywhere.
func wrapRuns(runs []run, w int) [][]run {
	var out [][]run
	var cur []run
	width := 0
	for _, r := range runs {
		s := r.text
		for s != "" {
			var b strings.Builder
			for s != "" {
				_, n := utf8.DecodeRuneInString(s)
				cw := ansi.StringWidth(s[:n])
				if width+cw > w {
					break
				}
				b.WriteString(s[:n])
				width += cw
				s = s[n:]
			}
			if b.Len() > 0 {
				piece := r
				piece.text = b.String()
				cur = append(cur, piece)
			}
			if s != "" {
				out = append(out, cur)
				cur, width = nil, 0
			}
		}
	}
	return append(out, cur)
}

// splitKeep splits s after each "\n", keeping the newline in the line so
// the raw view shows every line ending.
func splitKeep(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// sliceBody returns the bytes [from, to) of a side's body from its chunks.
func sliceBody(chunks []tape.Chunk, from, to int64) []byte {
	var out []byte
	for _, c := range chunks {
		s, e := c.Off, c.Off+int64(len(c.Data))
		if e <= from || s >= to {
			continue
		}
		out = append(out, c.Data[max(from-s, 0):min(to-s, int64(len(c.Data)))]...)
	}
	return out
}

// requestURL is the request's URL as shown: with scheme://host when the
// request names its host (a forward-proxy recording).
func requestURL(r *tape.Request) string {
	if r.Host == "" {
		return r.URL
	}
	return tape.BaseURL(nil, r) + r.URL
}
