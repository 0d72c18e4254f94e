package inspect

import (
	"strconv"
	"strings"

	"github.com/seam-dev/seam/shape"
	"github.com/seam-dev/seam/tape"
)

// How a hunk of the upstream-vs-client diff is accounted for.
const (
	// explainedNot: the proxy changed the text (an error).
	explainedNot = iota
	// explainedConverted: tool calls carried between structured form and
	// XML, unchanged (diff.tool-call-converted says so).
	explainedConverted
	// explainedShaped: text a transform the engine declares holds back
	// or drops (suppress-tail, stop-after-tools).
	explainedShaped
	// explainedUnread: the end of the upstream text the client never got
	// because its side did not end with the stream (it hung up, or it is
	// still open): not the proxy's doing.
	explainedUnread
)

// hunkExplainer tells the upstream-vs-client hunks a proxy is to blame
// for from those the engine's declared transforms, a conversion or the
// client's own leaving account for.
type hunkExplainer struct {
	up, cl string // the texts compared (choice 0's)
	// suppressTail and stopAfter are the engine's switches, as recorded.
	suppressTail bool
	stopAfter    int
	// clientLeft is set when the client side did not end with the stream.
	clientLeft bool
}

// explainer reads what the exchange's engine declares and how its client
// side ended.
func (c *exCtx) explainer() *hunkExplainer {
	e := &hunkExplainer{}
	up, cl := c.sides[tape.Upstream], c.sides[tape.Client]
	if up != nil && cl != nil {
		e.up, e.cl = choiceAt(up.Message, 0).Text, choiceAt(cl.Message, 0).Text
		e.clientLeft = cl.Outcome == "" || cl.Outcome == tape.ClientAborted
	}
	// The engine seam ran, fully resolved; an external proxy's (a
	// sandwich recording) declares nothing.
	if eng, err := shape.Resolve(c.engine.Profile, c.engine.Switches); err == nil {
		e.suppressTail = eng.Switches[shape.SwSuppressTail] == "on"
		e.stopAfter, _ = strconv.Atoi(eng.Switches[shape.SwStopAfterTools])
	}
	return e
}

// explain says what accounts for hunk h.
func (e *hunkExplainer) explain(h *Hunk) int {
	if h.Converted {
		return explainedConverted
	}
	// Only upstream text missing at the client's end can be explained
	// below: a deletion with nothing in its place, the client's text
	// ending where it begins.
	if h.bEnd != h.BOff || h.aEnd <= h.AOff || h.BOff != len(e.cl) {
		return explainedNot
	}
	if e.clientLeft {
		return explainedUnread
	}
	blocks := toolBlocks(e.up)
	if e.suppressTail && h.Region == RegionTail && h.aEnd == len(e.up) {
		return explainedShaped
	}
	if e.stopAfter > 0 && len(blocks) >= e.stopAfter && h.AOff >= blocks[e.stopAfter-1][1] && h.aEnd == len(e.up) {
		return explainedShaped
	}
	return explainedNot
}

// declared names the transforms that shape the text, for a finding.
func (e *hunkExplainer) declared() string {
	var on []string
	if e.suppressTail {
		on = append(on, "suppress-tail")
	}
	if e.stopAfter > 0 {
		on = append(on, "stop-after-tools="+strconv.Itoa(e.stopAfter))
	}
	return strings.Join(on, ", ")
}
