package tui

import (
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/tape"
)

// Tabs of the detail screen.
const (
	tabDiff = iota
	tabTimeline
	tabFindings
	tabRequest
	tabRaw
	numTabs
)

var tabNames = [numTabs]string{"Diff", "Timeline", "Findings", "Request", "Raw"}

// docLine is one line of a tab: styled runs and what it points at.
type docLine struct {
	runs  []run
	right []run // the right half in the side-by-side diff
	// hunk is the global hunk number a diff hunk header starts, or -1.
	hunk int
	// ptr is where enter jumps: a hunk's or a finding's event.
	ptr *inspect.Pointer
	// finding is the finding a line belongs to, or -1.
	finding int
	// row is the timeline row (index into exView.rows), or -1.
	row int
}

func newLine(runs ...run) docLine { return docLine{runs: runs, hunk: -1, finding: -1, row: -1} }

// doc is the content of one tab. The timeline builds its lines on demand,
// so a stream of many thousand chunks costs nothing until scrolled to.
type doc interface {
	len() int
	line(i int) docLine
}

type staticDoc []docLine

func (d staticDoc) len() int           { return len(d) }
func (d staticDoc) line(i int) docLine { return d[i] }

// rawTarget names the chunk or event the Raw tab shows.
type rawTarget struct {
	set   bool
	side  tape.Side
	event bool
	idx   int
}

// detail is the state of the exchange detail screen.
type detail struct {
	key     exKey
	rev     int
	loading bool
	err     error

	capt *tape.Capture
	rec  *exView
	// recEngine is the recorded engine with every switch resolved; engine
	// is the one shown (different after a toggle in the switch panel).
	recEngine, engine tape.Engine
	rp                *replayed
	replaying         bool
	replayErr         error
	gen               int

	tab      int
	split    bool
	tlSide   tape.Side // "" shows both sides
	tlEvents bool
	cur, off [numTabs]int
	docs     [numTabs]doc
	raw      rawTarget

	panel    bool
	panelCur int
	// tail keeps the timeline at its last row while the exchange grows.
	tail bool
	// fromSession is set when the session view opened it: back returns
	// there.
	fromSession bool
}

// view returns the exchange shown: the replay when the engine was changed,
// else the recording.
func (d *detail) view() *exView {
	if d.rp != nil {
		return d.rp.view
	}
	return d.rec
}

// invalidate drops the cached tab contents.
func (d *detail) invalidate() {
	d.docs = [numTabs]doc{}
}

// rawTarget returns what the Raw tab shows: the chunk or event last opened
// from the timeline, else the first client chunk (upstream when there is no
// client side).
func (d *detail) rawTarget() rawTarget {
	if d.raw.set {
		return d.raw
	}
	t := rawTarget{set: true, side: tape.Client}
	if v := d.view(); v != nil && len(v.x.Client.Chunks) == 0 {
		t.side = tape.Upstream
	}
	return t
}
