package inspect

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/seam-dev/seam/internal/textdiff"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// Diff kinds.
const (
	// DiffStreamedFinal compares the joined deltas of a side with the final
	// output the stream itself claims (response.completed).
	DiffStreamedFinal = "streamed-vs-final"
	// DiffUpstreamClient compares the upstream text with the client text.
	DiffUpstreamClient = "upstream-vs-client"
	// DiffExchanges compares two exchanges (or captures).
	DiffExchanges = "exchanges"
)

// Diff is a line-level comparison of two texts, semantically cleaned up
// (sergi/go-diff), in hunks that map back to the stream.
type Diff struct {
	Kind  string `json:"kind"`
	A     string `json:"a"`
	B     string `json:"b"`
	Equal bool   `json:"equal"`
	Hunks []Hunk `json:"hunks,omitempty"`
	// HunksCut counts the hunks ShortenDiff left out, which the text
	// renderings say.
	HunksCut int `json:"-"`
}

// Hunk is one region where the texts differ, with a line of context.
type Hunk struct {
	// AOff and BOff are the byte offsets in A and B of the first differing byte.
	AOff int `json:"a_off"`
	BOff int `json:"b_off"`
	// At points at the event (with its chunk, offset and time) that added
	// the first differing byte, on B's stream when it has one, else A's.
	At *Pointer `json:"at,omitempty"`
	// AtA says At is on A's stream (B has none there).
	AtA   bool       `json:"at_a,omitempty"`
	Lines []DiffLine `json:"lines"`
	// Region, in an upstream-vs-client diff of texts holding Obsidian tool
	// blocks, says where the hunk begins: preamble, tool-block,
	// between-blocks or tail (see RegionPreamble).
	Region string `json:"region,omitempty"`
	// Converted marks an upstream-vs-client hunk that only holds tool calls
	// carried between structured form and XML blocks, unchanged: a
	// converting proxy at work, not a text change.
	Converted bool `json:"converted,omitempty"`

	// aEnd and bEnd end the differing bytes in A and B.
	aEnd, bEnd int
}

// Pairs returns, for each line of the hunk, the index of the line it is
// compared with for intra-line emphasis (the k-th "-" line with the k-th
// "+" line), or -1: how the TUI and the HTML report pair them.
func (h *Hunk) Pairs() []int {
	out := make([]int, len(h.Lines))
	var dels, adds []int
	for i, l := range h.Lines {
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

// DiffLine is one line of a hunk: Op is " " (context), "-" (only in A) or
// "+" (only in B).
type DiffLine struct {
	Op   string `json:"op"`
	Text string `json:"text"`
}

// diffSide is one input of a diff: a text and how to map its bytes back.
type diffSide struct {
	label string
	text  string
	spans []protocol.Span
	ptr   func(ev int) Pointer
}

func (d diffSide) pointerAt(off int) *Pointer {
	if d.ptr == nil || len(d.spans) == 0 {
		return nil
	}
	at := off
	if at >= len(d.text) {
		at = len(d.text) - 1
	}
	ev := protocol.EventAt(d.spans, at)
	if ev < 0 {
		return nil
	}
	p := d.ptr(ev)
	return &p
}

// DiffTexts compares two texts with the given labels. Hunks carry no stream
// pointers.
func DiffTexts(kind, aLabel, a, bLabel, b string) *Diff {
	return diffSides(kind, diffSide{label: aLabel, text: a}, diffSide{label: bLabel, text: b})
}

// DiffExchangeReports compares what clients receive in two exchanges (the
// text of choice 0 and the tool calls), as `seam diff A B` shows it.
func DiffExchangeReports(a, b *ExchangeReport) *Diff {
	return diffSides(DiffExchanges, reportSide(a), reportSide(b))
}

func reportSide(x *ExchangeReport) diffSide {
	label := "ex " + strconv.Itoa(x.Ex)
	for _, s := range x.Sides {
		if len(x.Sides) == 1 || s.Side == tape.Client {
			text := s.Message.Text()
			if calls := toolCallsText(s.Message); calls != "" {
				text += "\n[tool calls] " + calls
			}
			var spans []protocol.Span
			if len(s.Message.Choices) > 0 {
				spans = s.Message.Choices[0].Spans
			}
			ev, side := s.ev, s.Side
			return diffSide{label: label + " " + string(s.Side), text: text, spans: spans, ptr: func(i int) Pointer { return eventPointer(ev, x.Ex, side, i) }}
		}
	}
	return diffSide{label: label}
}

// toolCallsText renders the tool calls of choice 0.
func toolCallsText(m *protocol.Message) string {
	if m == nil || len(m.Choices) == 0 {
		return ""
	}
	return renderCalls(m.Choices[0].ToolCalls)
}

func diffSides(kind string, a, b diffSide) *Diff {
	d, _ := compareSides(kind, a, b, false)
	return d
}

// compareSides is diffSides; with edits set, it also returns the edits of
// the whole texts before semantic cleanup, as textdiff.Diff of the two texts
// gives them, for diff.boundary-dedupe, which reads the small deletions
// the cleanup merges (nil when there is no deletion).
func compareSides(kind string, a, b diffSide, edits bool) (*Diff, []diffmatchpatch.Diff) {
	d := &Diff{Kind: kind, A: a.label, B: b.label, Equal: a.text == b.text}
	if d.Equal {
		return d, nil
	}
	diffs, whole := textEdits(a.text, b.text, edits)
	for _, r := range hunkRanges(diffs) {
		d.Hunks = append(d.Hunks, hunkOf(r, a, b))
	}
	return d, whole
}

// textEdits diffs two texts that differ: the edits after semantic cleanup,
// and with edits set the edits before it (see compareSides).
func textEdits(at, bt string, edits bool) (diffs, whole []diffmatchpatch.Diff) {
	// The diff library reads text as runes: text that is not UTF-8 is
	// diffed as textdiff.ValidText gives it and the diff mapped back onto its
	// bytes (textdiff.BytesBack).
	a, b := at, bt
	proxied := !utf8.ValidString(at) || !utf8.ValidString(bt)
	if proxied {
		at, bt = textdiff.ValidText(at), textdiff.ValidText(bt)
	}
	// Strip the common prefix and suffix first, so that semantic cleanup
	// cannot slide an edit away from the byte where the texts first differ
	// (it would, when the inserted text repeats what precedes it).
	pre, suf := CommonAffixes(at, bt)
	dmp := diffmatchpatch.New()
	raw := textdiff.Diff(at[pre:len(at)-suf], bt[pre:len(bt)-suf])
	if edits && slices.ContainsFunc(raw, func(d diffmatchpatch.Diff) bool { return d.Type == diffmatchpatch.DiffDelete }) {
		// The character diff of the whole texts, as textdiff.Diff gives it
		// (an edit slides left into the prefix when it repeats its end).
		// Texts too long for a character diff have the common ends put
		// around the edits and merged, as textdiff.Diff merges them: their
		// middle is diffed by characters when it is short enough. Without a
		// deletion there is nothing for diff.boundary-dedupe to read.
		whole = wholeEdits(at, bt, pre, suf, raw, dmp)
	}
	mid := dmp.DiffCleanupSemantic(raw)
	diffs = make([]diffmatchpatch.Diff, 0, len(mid)+2)
	diffs = append(diffs, diffmatchpatch.Diff{Type: diffmatchpatch.DiffEqual, Text: at[:pre]})
	diffs = append(diffs, mid...)
	if proxied {
		diffs, whole = textdiff.BytesBack(diffs, a, b), textdiff.BytesBack(whole, a, b)
	}
	return diffs, whole
}

// wholeEdits is the diff of the whole texts at and bt (see textEdits),
// given their common ends' lengths and the diff of what lies between.
func wholeEdits(at, bt string, pre, suf int, raw []diffmatchpatch.Diff, dmp *diffmatchpatch.DiffMatchPatch) []diffmatchpatch.Diff {
	if len(at)+len(bt) <= textdiff.CharDiffMax {
		// Diffed whole, not put together from the middle's diff: the
		// library merges a diff once, and merging the middle's merged
		// diff with the ends again can place an edit elsewhere.
		return textdiff.Diff(at, bt)
	}
	whole := make([]diffmatchpatch.Diff, 0, len(raw)+2)
	if pre > 0 {
		whole = append(whole, diffmatchpatch.Diff{Type: diffmatchpatch.DiffEqual, Text: at[:pre]})
	}
	whole = append(whole, raw...)
	if suf > 0 {
		whole = append(whole, diffmatchpatch.Diff{Type: diffmatchpatch.DiffEqual, Text: at[len(at)-suf:]})
	}
	return dmp.DiffCleanupMerge(whole)
}

// hunkRange is where a hunk's change is in the two texts: bytes a0 to a1
// of the first, b0 to b1 of the second.
type hunkRange struct{ a0, a1, b0, b1 int }

// mergeGap is the shortest equal stretch that keeps two changes in hunks
// of their own, in bytes.
const mergeGap = 32

// hunkRanges groups changes into hunks: runs of non-equal diffs, merged
// across equal stretches shorter than mergeGap bytes.
func hunkRanges(diffs []diffmatchpatch.Diff) []hunkRange {
	var hunks []hunkRange
	ao, bo := 0, 0
	for _, df := range diffs {
		n := len(df.Text)
		switch df.Type {
		case diffmatchpatch.DiffEqual:
			ao += n
			bo += n
			continue
		case diffmatchpatch.DiffDelete:
			if k := len(hunks); k > 0 && ao-hunks[k-1].a1 < mergeGap {
				hunks[k-1].a1, hunks[k-1].b1 = ao+n, bo
			} else {
				hunks = append(hunks, hunkRange{ao, ao + n, bo, bo})
			}
			ao += n
		case diffmatchpatch.DiffInsert:
			if k := len(hunks); k > 0 && bo-hunks[k-1].b1 < mergeGap {
				hunks[k-1].a1, hunks[k-1].b1 = ao, bo+n
			} else {
				hunks = append(hunks, hunkRange{ao, ao, bo, bo + n})
			}
			bo += n
		}
	}
	return hunks
}

// hunkOf is the hunk of range r: the changed lines of both texts, a line
// of context on each side, and where it is (in b, else in a).
func hunkOf(r hunkRange, a, b diffSide) Hunk {
	h := Hunk{AOff: r.a0, BOff: r.b0, aEnd: r.a1, bEnd: r.b1}
	as, ae := lineBounds(a.text, r.a0, r.a1)
	bs, be := lineBounds(b.text, r.b0, r.b1)
	if as > 0 {
		ctx := a.text[:as-1]
		ctx = ctx[strings.LastIndexByte(ctx, '\n')+1:]
		h.Lines = append(h.Lines, DiffLine{Op: " ", Text: ctx})
	}
	addLines(&h, "-", a.text[as:ae])
	addLines(&h, "+", b.text[bs:be])
	if ae < len(a.text) {
		rest := a.text[ae+1:]
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			rest = rest[:i]
		}
		h.Lines = append(h.Lines, DiffLine{Op: " ", Text: rest})
	}
	if p := b.pointerAt(h.BOff); p != nil {
		h.At = p
	} else {
		h.At, h.AtA = a.pointerAt(h.AOff), true
	}
	return h
}

// commonPrefix returns the length of the common prefix of a and b, on a
// UTF-8 rune boundary.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(a) && !utf8.RuneStart(a[n]) {
		n--
	}
	return n
}

// CommonAffixes returns the length of the common prefix of a and b and
// the length of the common suffix of what follows it, both on UTF-8 rune
// boundaries of a: a[pre:len(a)-suf] and b[pre:len(b)-suf] are the spans
// where the two differ.
func CommonAffixes(a, b string) (pre, suf int) {
	pre = commonPrefix(a, b)
	a, b = a[pre:], b[pre:]
	for suf < len(a) && suf < len(b) && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	for suf > 0 && !utf8.RuneStart(a[len(a)-suf]) {
		suf--
	}
	return pre, suf
}

// lineBounds widens [from, to) to whole lines: it returns the start of the
// line holding from and the end (the '\n' or len) of the line holding to.
func lineBounds(s string, from, to int) (int, int) {
	start := strings.LastIndexByte(s[:from], '\n') + 1
	end := len(s)
	if to > from && s[to-1] == '\n' {
		to--
	}
	if i := strings.IndexByte(s[to:], '\n'); i >= 0 {
		end = to + i
	}
	return start, end
}

func addLines(h *Hunk, op, s string) {
	if s == "" {
		return
	}
	for _, l := range strings.Split(s, "\n") {
		h.Lines = append(h.Lines, DiffLine{Op: op, Text: l})
	}
}

// exchangeDiffs computes the diffs an exchange report shows: streamed vs
// final per side where the stream claims a final output, then upstream vs
// client (ctx.upDiff) when both sides were recorded.
func exchangeDiffs(ctx *exCtx) []*Diff {
	var out []*Diff
	for _, s := range ctx.rep.Sides {
		m := s.Message
		if m.Final == nil || m.Status == "body" || len(m.Choices) == 0 {
			continue
		}
		ev, side, ex := s.ev, s.Side, ctx.x.Ex
		streamed := diffSide{label: string(side) + " deltas", text: m.Text(), spans: m.Choices[0].Spans, ptr: func(i int) Pointer { return eventPointer(ev, ex, side, i) }}
		final := diffSide{label: string(side) + " final", text: m.Final.Text()}
		out = append(out, diffSides(DiffStreamedFinal, streamed, final))
	}
	if ctx.upDiff != nil {
		out = append(out, ctx.upDiff)
	}
	return out
}

// upstreamClientDiff compares the upstream and client text when both sides
// carry a body, else it returns nil. The detectors use it whether or not
// the report shows diffs. Hunks say their region and whether they only hold
// tool calls converted between structured form and XML.
func upstreamClientDiff(ctx *exCtx) *Diff {
	up, cl := ctx.sides[tape.Upstream], ctx.sides[tape.Client]
	if up == nil || cl == nil || cl.Chunks == 0 || up.Chunks == 0 {
		return nil
	}
	d, edits := compareSides(DiffUpstreamClient, textSide(ctx.x.Ex, up), textSide(ctx.x.Ex, cl), true)
	ctx.upEdits = edits
	if !d.Equal {
		ca, cb := choiceAt(up.Message, 0), choiceAt(cl.Message, 0)
		convA, convB := convertedBlocks(ctx.callsOf(up, ca), ctx.callsOf(cl, cb))
		classifyHunks(d, ca.Text, cb.Text, convA, convB)
	}
	return d
}

// convertedBlocks returns the byte ranges of the XML blocks, in the
// upstream text (a) and in the client text (b), of the calls that crossed
// between structured form and XML with their name and arguments intact.
func convertedBlocks(a, b []sideCall) (convA, convB [][2]int) {
	for _, p := range matchCalls(a, b) {
		if p.a == nil || p.b == nil || p.a.xml == p.b.xml || p.a.name != p.b.name || !argsEqual(p.a, p.b) {
			continue
		}
		if p.a.xml {
			convA = append(convA, [2]int{p.a.start, p.a.end})
		} else {
			convB = append(convB, [2]int{p.b.start, p.b.end})
		}
	}
	sortRanges(convA)
	sortRanges(convB)
	return convA, convB
}

func sortRanges(r [][2]int) {
	slices.SortFunc(r, func(x, y [2]int) int { return cmp.Compare(x[0], y[0]) })
}

func textSide(ex int, s *SideReport) diffSide {
	ds := diffSide{label: string(s.Side), text: s.Message.Text()}
	if len(s.Message.Choices) > 0 {
		ds.spans = s.Message.Choices[0].Spans
	}
	ev, side := s.ev, s.Side
	ds.ptr = func(i int) Pointer { return eventPointer(ev, ex, side, i) }
	return ds
}
