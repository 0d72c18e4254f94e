package htmlreport

import (
	"strconv"
	"strings"
	"testing"

	"github.com/seam-dev/seam/inspect"
)

// TestLongLineCut cuts a long changed line around the change: the head
// before it and the tail after it are shortened, the change kept, and
// every cut counted.
func TestLongLineCut(t *testing.T) {
	head, tail := strings.Repeat("h", 5000), strings.Repeat("t", 5000)
	del := inspect.DiffLine{Op: "-", Text: head + "</use_tool>" + tail}
	add := inspect.DiffLine{Op: "+", Text: head + "</use_tool<use_tool>" + tail}
	lv := buildLine(add, &del)
	if lv.Mid != "<use_tool" || !lv.Emph {
		t.Errorf("change %q", lv.Mid)
	}
	if len(lv.Head) != maxLineHead || lv.HeadCut != len(head)+len("</use_tool")-maxLineHead {
		t.Errorf("head %d bytes, %d cut", len(lv.Head), lv.HeadCut)
	}
	if len(lv.Tail) != maxLineTail || lv.TailCut != len(tail)+1-maxLineTail {
		t.Errorf("tail %d bytes, %d cut", len(lv.Tail), lv.TailCut)
	}
	if got := len(lv.Head) + lv.HeadCut + len(lv.Mid) + len(lv.Tail) + lv.TailCut; got != len(add.Text) {
		t.Errorf("shown and cut add up to %d bytes, the line has %d", got, len(add.Text))
	}

	// A change longer than its budget: nothing after it is shown.
	big := inspect.DiffLine{Op: "+", Text: "a" + strings.Repeat("é", 3000) + "z"}
	lv = buildLine(big, &inspect.DiffLine{Op: "-", Text: "az"})
	if len(lv.Mid) > maxLineMid || lv.Tail != "" || len(lv.Head)+len(lv.Mid)+lv.TailCut != len(big.Text) {
		t.Errorf("long change: mid %d, tail %q, cut %d", len(lv.Mid), lv.Tail, lv.TailCut)
	}
	if !strings.HasSuffix(lv.Mid, "é") {
		t.Error("cut inside a rune")
	}
}

// TestDiffElided shows at most maxDiffLines lines of a diff and counts the
// rest, hunks included.
func TestDiffElided(t *testing.T) {
	d := &inspect.Diff{Kind: inspect.DiffUpstreamClient, A: "upstream", B: "client"}
	for h := range 3 {
		hk := inspect.Hunk{AOff: h}
		for i := range 400 {
			hk.Lines = append(hk.Lines, inspect.DiffLine{Op: "+", Text: strconv.Itoa(i)})
		}
		d.Hunks = append(d.Hunks, hk)
	}
	dv := buildDiff(d)
	shown := 0
	for _, h := range dv.Hunks {
		shown += len(h.Lines)
	}
	if shown != maxDiffLines || dv.Elided != 1200-maxDiffLines || dv.ElidedHunks != 1 || len(dv.Hunks) != 2 {
		t.Errorf("shown %d lines in %d hunks, elided %d in %d more hunks", shown, len(dv.Hunks), dv.Elided, dv.ElidedHunks)
	}
	if dv.Title != "Upstream vs client" {
		t.Errorf("title %q", dv.Title)
	}
}
