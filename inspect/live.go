package inspect

import (
	"bytes"
	"strings"

	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
)

// endOfStream holds the detectors that judge how a side's stream ended
// (its terminal event, its last event or frame, a cut, what was left
// open: a tool call, a block, a response): on a side still being recorded
// they would judge a stream that has not ended, so under Options.Live
// they wait for the side's end line.
var endOfStream = map[string]bool{
	tape.AnomalyInterrupted:        true,
	"stream.outcome":               true,
	"stream.no-terminal":           true,
	"sse.unterminated-event":       true,
	"encoding.cut":                 true,
	"encoding.cut-after-end":       true,
	"framing.cut":                  true,
	"tool.unclosed":                true,
	"tool.args-invalid-json":       true,
	"chat.finish-missing":          true,
	"anthropic.block-unclosed":     true,
	"bedrock.no-metadata":          true,
	"xml.unclosed-block":           true,
	"xml.unclosed-param":           true,
	"xml.text-after-tools":         true,
	"schema.missing-param":         true,
	"realtime.response-unfinished": true,
}

// endOfText holds the detectors that read a tag the text may still be
// completing: on a side still being recorded they wait when they point at
// its last event (the next delta decides), not when the tag is behind it.
var endOfText = map[string]bool{
	"xml.unclosed-closer": true,
	"xml.partial-opener":  true,
}

// liveSides notes, for a capture still being recorded, which sides of the
// exchange have no end line yet and whether it has no response at all.
func (c *exCtx) liveSides() {
	c.open, c.unanswered = map[tape.Side]bool{}, true
	for _, s := range []tape.Side{tape.Upstream, tape.Client} {
		sd := c.x.Side(s)
		if sd.Response == nil && len(sd.Chunks) == 0 && sd.End == nil {
			continue
		}
		c.unanswered = false
		if sd.End == nil {
			c.open[s] = true
		}
	}
}

// waits reports whether finding id at p is left out of a live exchange
// (Options.Live) until its sides end: an end-of-stream detector on a side
// still open (or, for a finding on no side, any side), a comparison of
// the two sides while either is open.
func (c *exCtx) waits(id string, p Pointer) bool {
	anyOpen := c.unanswered || len(c.open) > 0
	switch {
	case endOfStream[id]:
		if p.Side == "" {
			return anyOpen
		}
		return c.open[p.Side]
	case endOfText[id]:
		s := c.sides[p.Side]
		return c.open[p.Side] && s != nil && p.Event >= 0 && p.Event == len(s.ev.Events)-1
	case strings.HasPrefix(id, "diff.") || id == "client.disagree":
		return anyOpen
	}
	return false
}

// openTail drops from a side still being recorded what its next bytes
// complete: a last event no blank line (line feed, frame end) has ended
// yet, and a last SSE field line no line ending has ended.
func openTail(se *protocol.Side) {
	if n := len(se.Events); n > 0 && !se.Events[n-1].Terminated {
		se.Events = se.Events[:n-1]
	}
	if n := len(se.Fields); n > 0 && !lineEnded(se.Chunks, se.Fields[n-1].Off) {
		se.Fields = se.Fields[:n-1]
	}
}

// lineEnded reports whether a line ending (CR or LF) follows body offset
// off in the chunks.
func lineEnded(chunks []tape.Chunk, off int64) bool {
	for _, c := range chunks {
		end := c.Off + int64(len(c.Data))
		if end <= off {
			continue
		}
		if bytes.ContainsAny(c.Data[max(off-c.Off, 0):], "\r\n") {
			return true
		}
	}
	return false
}
