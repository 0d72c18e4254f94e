package htmlreport

import (
	"fmt"

	"github.com/seam-dev/seam/inspect"
)

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
		pair := h.Pairs()
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
	pre, suf := inspect.CommonAffixes(l.Text, other.Text)
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
