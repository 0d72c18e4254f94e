package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/shape"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible"
)

// render draws the whole screen: exactly m.h lines of at most m.w cells.
func (m *model) render() string {
	var lines []string
	switch {
	case m.screen == screenDetail && m.det != nil:
		lines = m.detailView()
	case m.screen == screenSession && m.sess != nil:
		lines = m.sessionScreen()
	default:
		lines = []string{m.titleBar()}
		if m.banner != "" {
			lines = append(lines, paint([]run{sty(clean(m.banner), m.st.notice)}, m.w, "", m.st.match))
		}
		lines = append(lines, m.bodyOrOverlay(m.listView(m.bodyHeight()+1), m.bodyHeight()+1)...)
	}
	for len(lines) < m.h-1 {
		lines = append(lines, "")
	}
	lines = lines[:m.h-1]
	lines = append(lines, m.footer())
	for i, l := range lines {
		// The last line of defence: whatever a string from a capture
		// carried past clean, only the styling's SGR sequences reach the
		// terminal.
		if !m.unguarded {
			l = visible.Styled(l)
			lines[i] = l
		}
		if ansi.StringWidth(l) > m.w {
			lines[i] = ansi.Truncate(l, m.w, "")
		}
	}
	return strings.Join(lines, "\n")
}

// bodyOrOverlay returns the body, or the full help in its place.
func (m *model) bodyOrOverlay(body []string, h int) []string {
	if m.showHelp {
		return m.helpView(h)
	}
	return body
}

// titleBar is the first line of the list screen.
func (m *model) titleBar() string {
	st := m.st
	var name string
	switch {
	case len(m.caps) == 0:
		name = m.waitingFor()
	case len(m.caps) == 1:
		name = clean(m.caps[0].name)
	default:
		name = fmt.Sprintf("%d captures in %s", len(m.caps), clean(filepath.Dir(m.caps[0].name)))
	}
	parts := []string{units.Count(len(m.sums), "exchange")}
	if len(m.list.rows) != len(m.sums) {
		parts[0] = fmt.Sprintf("%d of %d exchanges", len(m.list.rows), len(m.sums))
	}
	if len(m.caps) == 1 && m.caps[0].header != nil {
		parts = append(parts, "engine "+clean(m.caps[0].header.Engine.Profile))
	}
	parts = append(parts, "sort "+sortNames[m.list.sortBy])
	if m.list.reverse {
		parts[len(parts)-1] += " ↑"
	}
	if m.list.filter != "" {
		parts = append(parts, "filter "+clean(m.list.filter))
	}
	if !m.allScanned() {
		parts = append(parts, "indexing…")
	}
	warns := 0
	for _, c := range m.caps {
		warns += len(c.warnings)
	}
	if warns > 0 {
		parts = append(parts, "⚠ "+units.Count(warns, "line")+" skipped")
	}
	if m.following() {
		parts = append(parts, "● following")
	}
	return paint([]run{sty("seam ", st.title), sty(name, st.bold), sty("  "+strings.Join(parts, " · "), st.dim)}, m.w, "", st.match)
}

// tabLabel renders a tab name with its count; the active one is bracketed
// so it shows without colour.
func (m *model) tabLabel(i int, name string) string {
	if i == tabFindings && m.det != nil && m.det.rec != nil {
		name = fmt.Sprintf("%s (%d)", name, len(m.det.view().rep.Findings))
	}
	if m.det != nil && m.det.tab == i {
		return "[" + name + "]"
	}
	return " " + name + " "
}

// detailView draws the detail screen without its footer.
func (m *model) detailView() []string {
	d, st := m.det, m.st
	s := m.sums[m.byKey[d.key]]
	// capture#ex, as --ex CAPTURE#N takes it: the name even when there is
	// one capture (a live view's title said only "ex 1").
	title := []run{sty("seam ", st.title), sty(clean(filepath.Base(m.caps[s.file].name)), st.dim), sty(fmt.Sprintf("#%d", s.ex), st.bold)}
	title = append(title, txt("  "+s.requestLine()))
	if mdl := m.modelOf(m.byKey[d.key]); mdl != "" {
		title = append(title, sty("  "+mdl, st.dim))
	}
	stStyle := st.okText
	if s.status >= 400 || (s.outcome != "" && !s.outcome.Success()) {
		stStyle = st.failText
	}
	title = append(title, sty(fmt.Sprintf("  %d %s", s.status, resultLabel(s.status, s.outcome, true)), stStyle),
		sty(fmt.Sprintf("  ttfb %s  dur %s", units.Duration(s.ttfb()), units.Duration(s.dur())), st.dim))
	lines := []string{paint(title, m.w, "", st.match)}

	var tabs []string
	for i, name := range tabNames {
		l := m.tabLabel(i, name)
		if d.tab == i {
			tabs = append(tabs, st.tabOn.Render(l))
		} else {
			tabs = append(tabs, st.tab.Render(l))
		}
	}
	lines = append(lines, strings.Join(tabs, " "))
	lines = append(lines, paint(m.engineLine(), m.w, "", st.match))

	h := m.bodyHeight()
	var body []string
	switch {
	case m.showHelp:
		body = m.helpView(h)
	case d.panel:
		body = m.panelView(h)
	case d.err != nil:
		body = []string{st.failText.Render("cannot load exchange: " + clean(d.err.Error()))}
	case d.rec == nil:
		body = []string{st.dim.Render("loading exchange…")}
	default:
		body = m.tabView(h)
	}
	return append(lines, body...)
}

// engineLine says which engine the detail shows.
func (m *model) engineLine() []run {
	d, st := m.det, m.st
	rec := clean(d.recEngine.Profile)
	if rec == "" {
		rec = "?"
	}
	delta := clean(engineDelta(d.recEngine, d.engine))
	var out []run
	switch {
	case delta == "":
		out = append(out, sty("engine ", st.dim), txt(rec), sty(" (recorded", st.dim))
		if h := holdbackNote(d.recEngine); h != "" {
			out = append(out, sty(", "+clean(h), st.dim))
		}
		out = append(out, sty(")  e: switches", st.dim))
	case d.replaying:
		out = append(out, sty("replaying with ", st.notice), sty(delta, st.bold), sty("…", st.notice))
	case d.replayErr != nil:
		out = append(out, sty("replay failed: "+clean(d.replayErr.Error()), st.failText))
	case d.rp != nil:
		out = append(out, sty("replayed ", st.notice), txt(rec+" "), sty(delta, st.bold), sty(" · "+d.rp.desc, st.dim), sty("  r: recorded", st.dim))
	}
	if m.following() && m.live(d.key) {
		out = append(out, sty("  ● live", st.notice))
	}
	if v := d.view(); v != nil && v.rep != nil {
		if line := v.rep.Metrics.Line(); line != "" {
			out = append(out, sty("  ·  "+line, st.dim))
		}
	}
	return out
}

// holdbackNote names the switches most worth knowing in the engine line.
func holdbackNote(e tape.Engine) string {
	if e.Profile == shape.ProfilePassthrough || e.Profile == "" {
		return ""
	}
	var out []string
	for _, k := range []string{shape.SwHoldback, shape.SwSuppressTail} {
		if v, ok := e.Switches[k]; ok {
			out = append(out, k+"="+v)
		}
	}
	return strings.Join(out, " ")
}

// tabView draws the current tab's visible lines.
func (m *model) tabView(h int) []string {
	d, st := m.det, m.st
	doc := m.doc(d.tab)
	cursorRows := d.tab == tabTimeline || d.tab == tabFindings
	var out []string
	curFinding := -1
	if d.tab == tabFindings && d.cur[tabFindings] < doc.len() {
		curFinding = doc.line(d.cur[tabFindings]).finding
	}
	curHunk := -1
	if d.tab == tabDiff {
		for i, l := range m.diffHunks() {
			if l <= d.cur[tabDiff] {
				curHunk = i
			}
		}
	}
	for i := d.off[d.tab]; i < doc.len() && len(out) < h; i++ {
		l := doc.line(i)
		sel := i == d.cur[d.tab]
		if d.tab == tabFindings {
			sel = l.finding >= 0 && l.finding == curFinding
		}
		gutter := "  "
		if sel {
			gutter = "▌ "
		}
		if l.hunk >= 0 && l.hunk == curHunk {
			l.runs = append([]run{sty("▶ ", st.hunkOn)}, l.runs...)
		}
		line := m.renderDocLine(l, m.w-2)
		if sel && cursorRows {
			line = st.selected.Render(padRight(ansi.Strip(line), m.w-2))
		}
		out = append(out, gutter+line)
	}
	if doc.len() == 0 {
		out = append(out, st.dim.Render("  (empty)"))
	}
	return out
}

// panelView draws the engine switch panel.
func (m *model) panelView(h int) []string {
	d, st := m.det, m.st
	out := []string{
		paint([]run{sty("engine switches", st.header), sty(fmt.Sprintf("  recorded profile %s · toggling replays the exchange through the engine", clean(d.recEngine.Profile)), st.dim)}, m.w, "", st.match),
	}
	for i, s := range shape.Switches() {
		v := clean(d.engine.Switches[s.Name])
		box := "[ ]"
		switch {
		case s.Kind != "bool":
			box = "[" + v + "]"
		case v == "on":
			box = "[x]"
		}
		rec := clean(d.recEngine.Switches[s.Name])
		runs := []run{txt(box + " "), sty(fit(s.Name, 18), st.bold), txt(" " + fit(v, 4))}
		if rec != v {
			runs = append(runs, sty(fit("was "+rec, 9), st.notice))
		} else {
			runs = append(runs, txt(fit("", 9)))
		}
		runs = append(runs, sty(" "+s.Doc, st.dim))
		line := paint(runs, m.w-2, "", st.match)
		if i == d.panelCur {
			line = st.selected.Render(padRight(ansi.Strip(line), m.w-2))
			line = "▌ " + line
		} else {
			line = "  " + line
		}
		out = append(out, line)
	}
	status := "recorded engine"
	if delta := engineDelta(d.recEngine, d.engine); delta != "" {
		status = "changed: " + clean(delta)
		if d.replaying {
			status += " (replaying…)"
		} else if d.rp != nil {
			status += fmt.Sprintf(" · %s now, %d recorded", units.Count(len(d.rp.view.rep.Findings), "finding"), len(d.rec.rep.Findings))
		}
	}
	out = append(out, "", paint([]run{sty("  "+status, st.notice)}, m.w, "", st.match))
	if len(out) > h {
		out = out[:h]
	}
	return out
}

// helpScope is where the keys of the current screen apply.
func (m *model) helpScope() scope {
	switch {
	case m.screen == screenSession:
		return inSession
	case m.screen == screenList || m.det == nil:
		return inList
	case m.det.panel:
		return inPanel
	}
	return inDetail | [numTabs]scope{tabDiff: inDiff, tabTimeline: inTimeline, tabFindings: inFindings}[m.det.tab]
}

// helpView draws the full help of the current screen, made from the key
// table (every key that applies there), and the legend, scrolled by
// helpOff when it is taller than h.
func (m *model) helpView(h int) []string {
	st := m.st
	names, cols := m.keys.fullHelp(m.helpScope())
	out := []string{st.header.Render("keys") + st.dim.Render("  (q, esc or ? closes this help; ↑/↓ scroll)")}
	// Columns side by side, as many to a row as fit the width.
	for i := 0; i < len(cols); {
		j := i + 1
		for j < len(cols) && blockWidth(m.helpBlock(names[i:j+1], cols[i:j+1])) <= m.w {
			j++
		}
		out = append(out, "")
		out = append(out, m.helpBlock(names[i:j], cols[i:j])...)
		i = j
	}
	legend := []string{
		"",
		st.header.Render("legend"),
		"  findings  E error  W warn  I info  ok clean  … not inspected yet",
		"  diff      - only in A  + only in B  changed bytes: struck (-) / underlined (+)",
		"  text      ␍ CR  ␊ LF  ↵ newline  ⇥ tab  ␛ ESC  · trailing space  ⟨U+…⟩ hidden",
		"  timeline  up/cl side  c# chunk  e# event  ! pointed at by a finding",
		"  filter    model=gpt-5* ttfb>1s sev>=warn finding=diff.* words (help where)",
		"  session   ▾ open ▸ folded ×N turns · t group · space fold · T turns",
	}
	out = append(out, legend...)
	if len(out) > h {
		m.helpOff = min(m.helpOff, len(out)-h)
		out = out[m.helpOff : m.helpOff+h]
	} else {
		m.helpOff = 0
	}
	return out
}

// blockWidth is the width of the widest line.
func blockWidth(lines []string) int {
	w := 0
	for _, l := range lines {
		w = max(w, ansi.StringWidth(l))
	}
	return w
}

// helpBlock renders help columns side by side, each headed by its name.
func (m *model) helpBlock(names []string, cols [][]key.Binding) []string {
	st := m.st
	body := strings.Split(m.help.FullHelpView(cols), "\n")
	// Each name above its column: the help bubble draws a column as its
	// widest key, a space and its widest description, then its separator.
	var head strings.Builder
	for i, c := range cols {
		kw, dw := 0, 0
		for _, b := range c {
			kw, dw = max(kw, ansi.StringWidth(b.Help().Key)), max(dw, ansi.StringWidth(b.Help().Desc))
		}
		w := kw + 1 + dw
		if i < len(cols)-1 {
			w += ansi.StringWidth(m.help.FullSeparator)
		}
		head.WriteString(names[i] + strings.Repeat(" ", max(w-ansi.StringWidth(names[i]), 1)))
	}
	return append([]string{st.dim.Render(head.String())}, body...)
}

// footer is the last line: the input being typed, a status message or the
// help bar.
func (m *model) footer() string {
	st := m.st
	switch m.input {
	case inputSearch:
		out := st.input.Render("/"+m.inputBuf) + "█"
		switch {
		case m.inputMatches == 0:
			out += st.failText.Render("  no match")
		case m.inputMatches == 1:
			out += st.dim.Render("  1 match")
		case m.inputMatches > 1:
			out += st.dim.Render(fmt.Sprintf("  %d matches", m.inputMatches))
		}
		if m.helpScope() == inList {
			// / reads the rows as shown; f's free words read the bodies.
			out += st.dim.Render("  (the rows' columns; f filters by the text of bodies too)")
		}
		return out
	case inputFilter:
		if m.inputErr != "" {
			return st.input.Render("filter: "+m.inputBuf) + "█" + st.failText.Render("  "+m.inputErr)
		}
		return st.input.Render("filter: "+m.inputBuf) + "█" + st.dim.Render("  model=gpt-5* outcome!=complete finding=diff.* stalls>0 or text (seam help where)")
	}
	if m.status != "" {
		if m.statusErr {
			return paint([]run{sty(m.status, st.failText)}, m.w, "", st.match)
		}
		return paint([]run{sty(m.status, st.notice)}, m.w, "", st.match)
	}
	var hk helpKeys
	switch {
	case m.screen == screenSession:
		hk = m.keys.sessionHelp()
	case m.screen == screenList || m.det == nil:
		hk = m.keys.listHelp()
	case m.det.panel:
		hk = m.keys.engineHelp()
	default:
		hk = m.keys.detailHelp(m.det.tab)
	}
	bar := m.help.ShortHelpView(hk.ShortHelp())
	if m.search != "" {
		bar = st.notice.Render("/"+m.search+" ") + bar
	}
	return bar
}
