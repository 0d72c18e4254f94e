package inspect

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/coding"
	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/sse"
	"github.com/seam-dev/seam/tape"
)

// runDetectors runs the detectors that read this exchange only, on the
// assemblies' anomalies and then in registry order; the ordered ones run
// in exCtx.settle.
func runDetectors(c *exCtx) {
	reg := detectors()
	if c.rep.WebSocket != nil {
		return // inspectWebSocket reported what applies
	}
	for _, s := range c.rep.Sides {
		if s.asm == nil {
			continue
		}
		for _, a := range s.asm.Anomalies {
			c.emit(a.ID, eventPointer(s.ev, c.x.Ex, s.Side, a.Event), a.Evidence, a.Msg)
		}
		if len(s.asm.More) == 0 {
			continue
		}
		for _, id := range slices.Sorted(maps.Keys(s.asm.More)) {
			c.emit(id, eventPointer(s.ev, c.x.Ex, s.Side, -1), "",
				fmt.Sprintf("%d more like the %d above on the %s side, not listed", s.asm.More[id], protocol.MaxPerID, s.Side))
		}
	}
	for _, d := range reg {
		if d.run != nil && !d.ordered {
			d.run(c)
		}
	}
}

// runOrdered runs the ordered detectors, in registry order.
func runOrdered(c *exCtx) {
	for _, d := range detectors() {
		if d.run != nil && d.ordered {
			d.run(c)
		}
	}
}

// cutShort are the findings that only say a stream stopped before its
// end: on a side seam's own shutdown cut (recorder_shutdown), that is what
// the cut did, and stream.recorder-shutdown says it once.
var cutShort = map[string]bool{
	"stream.no-terminal": true, "chat.finish-missing": true, "sse.unterminated-event": true,
	"encoding.cut": true, "framing.cut": true, "tool.unclosed": true,
	"anthropic.block-unclosed": true, "realtime.response-unfinished": true, "bedrock.no-metadata": true,
	"tool.args-invalid-json": true, // the arguments of the call being streamed, cut
}

func (c *exCtx) emit(id string, p Pointer, evidence, msg string) {
	if cutShort[id] && p.Side != "" {
		if sd := c.sides[p.Side]; sd != nil && sd.Outcome == tape.RecorderShutdown {
			return
		}
	}
	if c.open != nil && c.waits(id, p) {
		return
	}
	s, ok := c.sev[id]
	if !ok {
		s = Warn
	}
	c.rep.Findings = append(c.rep.Findings, Finding{ID: id, Severity: s, Message: msg, Pointer: p, Evidence: evidence})
}

// emitPair records a finding on two sides: at is where it was born on the
// side it concerns, peer (when not nil) where its counterpart was born on
// the other.
func (c *exCtx) emitPair(id string, at Pointer, peer *Pointer, evidence, msg string) {
	c.emit(id, at, evidence, msg)
	c.rep.Findings[len(c.rep.Findings)-1].Peer = peer
}

func (c *exCtx) reqPointer() Pointer {
	return Pointer{Ex: c.x.Ex, Event: -1, Chunk: -1, Off: -1, T: -1}
}

func (c *exCtx) sidePointer(s *SideReport, ev int) Pointer {
	return eventPointer(s.ev, c.x.Ex, s.Side, ev)
}

// runTape reports the places where the capture's lines contradict each
// other, found by tape as it read them, with the file and line.
func runTape(c *exCtx) {
	for _, a := range c.x.Anomalies {
		p := Pointer{Ex: c.x.Ex, Side: a.Side, Event: -1, Chunk: a.Chunk, Off: -1, T: -1}
		if a.Chunk >= 0 {
			p.Off, p.T = a.Off, a.T
		}
		msg := a.Message
		if a.Count > 1 {
			msg += " (" + strconv.Itoa(a.Count-1) + " more like it on this side)"
		}
		evidence := ""
		if a.Line > 0 {
			evidence = c.name + ":" + strconv.Itoa(a.Line)
		}
		c.emit(a.ID, p, evidence, msg)
	}
}

func runHTTPStatus(c *exCtx) {
	for _, s := range c.rep.Sides {
		if failed(s.Status) {
			msg := "HTTP " + strconv.Itoa(s.Status) + " on the " + string(s.Side) + " side"
			if s.Message.Error != "" {
				msg += ": " + excerpt.Clip(s.Message.Error, 120)
			}
			c.emit("http.status", c.sidePointer(s, -1), excerpt.Clip(string(head(s.ev.Chunks, 200)), 160), msg)
		} else if !s.Stream && s.Message.Error != "" {
			// A non-stream body under a success status that is an error.
			c.emit("stream.error-event", c.sidePointer(s, -1), excerpt.Clip(s.Message.Error, 160),
				"the "+string(s.Side)+" body is an error although the status is "+strconv.Itoa(s.Status)+": "+excerpt.Clip(s.Message.Error, 120))
		}
	}
}

func runOutcome(c *exCtx) {
	for _, s := range c.rep.Sides {
		if s.Outcome == "" || s.Outcome.Success() {
			continue
		}
		if s.Outcome == tape.RecorderShutdown {
			c.emit("stream.recorder-shutdown", c.sidePointer(s, len(s.ev.Events)-1), s.Error,
				"the "+string(s.Side)+" side was still streaming when seam shut down: seam cut it, not the client or the upstream")
			continue
		}
		if s.Outcome == tape.Truncated && s.Stream && s.Message.Protocol == protocol.Unknown {
			// The recorder calls a stream truncated when it saw no terminal
			// event it knows; for a protocol nobody knows, that says nothing.
			continue
		}
		if s.Outcome == tape.Truncated && errors.Is(s.codingErr, coding.ErrCut) && endedBeforeCut(s) {
			// Truncated only by the compressed stream, after the terminal
			// event: encoding.cut-after-end says so, nothing was lost.
			continue
		}
		c.emit("stream.outcome", c.sidePointer(s, len(s.ev.Events)-1), s.Error, string(s.Side)+" side ended "+string(s.Outcome))
	}
}

func runUnterminated(c *exCtx) {
	for _, s := range c.rep.Sides {
		if s.Framing != framing.SSE {
			continue // an NDJSON line without LF is still read; a cut element is framing.cut
		}
		n := len(s.ev.Events)
		if n > 0 && !s.ev.Events[n-1].Terminated {
			c.emit("sse.unterminated-event", c.sidePointer(s, n-1), excerpt.Clip(s.ev.Events[n-1].Data, 80),
				"the last event is not ended by a blank line: spec clients discard it")
		}
	}
}

func runQuirks(c *exCtx) {
	for _, s := range c.rep.Sides {
		seen := map[string]bool{}
		for _, e := range s.ev.Events {
			if e.Quirks == "" {
				continue
			}
			for _, q := range strings.Split(e.Quirks, "|") {
				if q == "comment" || q == "unknown-field" || seen[q] {
					// (sse.unknown-field shows the fields with their text.)
					continue
				}
				seen[q] = true
				msg := "SSE framing quirk " + q + " (first at this event)"
				if q == "too-long" {
					msg = "a line or the data of this event is longer than seam's cap of " + coding.Size(sse.MaxLine) +
						" (first at this event): only the bytes up to the cap were read"
				}
				c.emit("sse.quirk", c.sidePointer(s, e.Index), q, msg)
			}
		}
	}
}

func runComments(c *exCtx) {
	for _, s := range c.rep.Sides {
		if len(s.ev.Comments) == 0 {
			continue
		}
		cm := s.ev.Comments[0]
		p := Pointer{Ex: c.x.Ex, Side: s.Side, Event: -1, Chunk: cm.Chunk, Off: cm.Off, T: cm.T}
		c.emit("sse.comment", p, ": "+excerpt.Clip(cm.Text, 60), strconv.Itoa(len(s.ev.Comments))+" comment frame(s) in the "+string(s.Side)+" stream")
	}
}

func runDisagree(c *exCtx) {
	for _, d := range c.rep.Disagreements {
		var parts []string
		for _, v := range d.Values {
			parts = append(parts, v.Client+"="+strconv.Quote(excerpt.Clip(v.Value, 40)))
		}
		c.emit("client.disagree", c.reqPointer(), strings.Join(parts, " "), "clients end up with different "+d.Field)
	}
}

func runUpstreamClient(c *exCtx) {
	d := c.upDiff
	if d == nil || d.Equal {
		return
	}
	var changed, shaped []Hunk
	ex := c.explainer()
	for _, h := range d.Hunks {
		switch why := ex.explain(&h); why {
		case explainedNot:
			changed = append(changed, h)
		case explainedShaped:
			shaped = append(shaped, h)
		}
	}
	if len(shaped) > 0 {
		h := shaped[0]
		p := c.reqPointer()
		if h.At != nil {
			p = *h.At
		}
		c.emit("diff.text-shaped", p, hunkEvidence(h), units.Count(len(shaped), "difference")+" between upstream and client text that the engine's declared transforms make ("+ex.declared()+")")
	}
	if len(changed) > 0 {
		h := changed[0]
		p := c.reqPointer()
		if h.At != nil {
			p = *h.At
		}
		where := ""
		if h.Region != "" {
			where = ", the first in the " + regionWords(h.Region)
		}
		c.emit("diff.upstream-client", p, hunkEvidence(h), units.Count(len(changed), "difference")+" between upstream and client text"+where)
	}
	boundaryDedupe(c, c.sides[tape.Upstream], c.sides[tape.Client])
}

// regionWords names a region in a sentence.
func regionWords(r string) string {
	switch r {
	case RegionPreamble:
		return "preamble before the first tool block"
	case RegionToolBlock:
		return "tool block"
	case RegionBetween:
		return "text between tool blocks"
	case RegionTail:
		return "tail after the last tool block"
	}
	return r
}

func hunkEvidence(h Hunk) string {
	var parts []string
	for _, l := range h.Lines {
		if l.Op != " " {
			parts = append(parts, l.Op+excerpt.Clip(l.Text, 60))
		}
		if len(parts) == 4 {
			break
		}
	}
	return strings.Join(parts, " | ")
}

// runFraming reports a body that is not the framing its Content-Type
// declares, and the bytes the framing could not read.
func runFraming(c *exCtx) {
	for _, s := range c.rep.Sides {
		if s.mismatch && !(failed(s.Status) && !s.Stream) {
			// (An error body in JSON under a stream's Content-Type, as
			// Gemini sends a 400, is read as the error it is: SDKs read
			// a failed response's body whatever its Content-Type.)
			ct := ""
			if sd := c.x.Side(s.Side); sd.Response != nil && len(sd.Response.Headers["content-type"]) > 0 {
				ct = sd.Response.Headers["content-type"][0]
			}
			kind := s.Framing.String()
			if !s.Stream {
				kind = "one JSON document"
			}
			c.emit("framing.mismatch", c.bytePointer(s, 0), excerpt.Clip(strconv.Quote(string(head(s.ev.Chunks, 24))), 80),
				"the "+string(s.Side)+" body is "+kind+" although its Content-Type says "+strconv.Quote(ct)+": it was read as "+kind)
		}
		for _, p := range s.ev.Problems {
			at, ev := c.bytePointer(s, p.Off), bytesEvidence(s.ev.Chunks, p.Off, 16)
			msg := s.Framing.String() + " at byte " + strconv.FormatInt(p.Off, 10) + ": " + p.Msg
			if p.Kind == framing.Cut {
				c.emit("framing.cut", at, ev, msg)
			} else {
				c.emit("framing.corrupt", at, ev, msg)
			}
		}
	}
}

// runProtocolUnknown says once per side that a stream's protocol was not
// recognised, so its events were not assembled.
func runProtocolUnknown(c *exCtx) {
	for _, s := range c.rep.Sides {
		if s.Stream && s.Message.Protocol == protocol.Unknown && len(s.ev.Events) > 0 {
			c.emit("protocol.unknown", c.sidePointer(s, 0), excerpt.Clip(s.ev.Events[0].Data, 80),
				"protocol not recognised: the "+strconv.Itoa(len(s.ev.Events))+" "+s.Framing.String()+" events of the "+string(s.Side)+" side are shown raw, not assembled")
		}
	}
}

// bytePointer points at byte off of a side's body: the chunk holding it
// and that chunk's time.
func (c *exCtx) bytePointer(s *SideReport, off int64) Pointer {
	p := Pointer{Ex: c.x.Ex, Side: s.Side, Event: -1, Off: off}
	p.Chunk, p.T = chunkTimeAt(s.ev.Chunks, off)
	return p
}

// chunkTimeAt returns the index and time of the chunk holding byte off,
// or -1, -1 when there are no chunks.
func chunkTimeAt(chunks []tape.Chunk, off int64) (int, int64) {
	i := tape.ChunkAt(chunks, off)
	if i < 0 {
		return -1, -1
	}
	return i, chunks[i].T
}

// bytesEvidence shows up to n body bytes from off, quoted.
func bytesEvidence(chunks []tape.Chunk, off int64, n int) string {
	var b []byte
	for _, ch := range chunks {
		end := ch.Off + int64(len(ch.Data))
		if end <= off || len(b) >= n {
			continue
		}
		from := max(off-ch.Off, 0)
		b = append(b, ch.Data[from:min(int64(len(ch.Data)), from+int64(n-len(b)))]...)
	}
	return strconv.Quote(string(b))
}

// endedBeforeCut reports whether a side whose compressed body was cut had
// its terminal event, ended, before the cut: a client that hangs up at
// [DONE] leaves the compressor's last block unsent (Cohere's and
// Mistral's SDKs do, with br and gzip), and lost nothing.
func endedBeforeCut(s *SideReport) bool {
	if s.asm == nil || s.asm.Terminal < 0 || s.asm.Terminal >= len(s.ev.Events) {
		return false
	}
	return s.ev.Events[s.asm.Terminal].Terminated
}

// runEncoding reports a compressed body that was cut (before its terminal
// event: truncated; after it: nothing lost), corrupt, or in a coding seam
// cannot decode.
func runEncoding(c *exCtx) {
	for _, s := range c.rep.Sides {
		err := s.codingErr
		if err == nil {
			continue
		}
		last := len(s.ev.Chunks) - 1
		p := c.bytePointer(s, s.Decoded)
		if last >= 0 {
			p.Chunk, p.T = last, s.ev.Chunks[last].T
		}
		var u *coding.UnsupportedError
		var capped *coding.CapError
		switch {
		case errors.As(err, &capped):
			c.emit("encoding.capped", p, "Content-Encoding: "+excerpt.Clip(s.Encoding, 60),
				"the "+string(s.Side)+" body decodes to more than seam's cap of "+coding.Size(capped.Cap)+" decoded per "+capped.Per+
					" (a compression bomb, or a body larger than seam reads): decoding stopped after "+strconv.FormatInt(s.Decoded, 10)+" bytes and the rest is not read")
		case errors.As(err, &u):
			c.emit("encoding.unsupported", c.bytePointer(s, 0), "Content-Encoding: "+excerpt.Clip(s.Encoding, 60),
				"the "+string(s.Side)+" body is in "+err.Error()+": it is not read")
		case errors.Is(err, coding.ErrCut) && endedBeforeCut(s):
			t := s.ev.Events[s.asm.Terminal]
			c.emit("encoding.cut-after-end", p, "Content-Encoding: "+excerpt.Clip(s.Encoding, 60),
				"the "+string(s.Side)+" body ends inside its "+s.Encoding+" stream after "+strconv.FormatInt(s.Decoded, 10)+
					" decoded bytes, after its terminal event (event "+strconv.Itoa(t.Index)+"): the compressor's last block never came, nothing of the answer is missing")
		case errors.Is(err, coding.ErrCut):
			c.emit("encoding.cut", p, "Content-Encoding: "+excerpt.Clip(s.Encoding, 60),
				"the "+string(s.Side)+" body is cut inside its "+s.Encoding+" stream after "+strconv.FormatInt(s.Decoded, 10)+" decoded bytes: it was truncated")
		default:
			c.emit("encoding.corrupt", p, excerpt.Clip(err.Error(), 120),
				"the "+string(s.Side)+" body does not decode as "+s.Encoding+" after "+strconv.FormatInt(s.Decoded, 10)+" decoded bytes: "+excerpt.Clip(err.Error(), 120))
		}
	}
}
