package inspect

import (
	"bytes"
	"slices"
	"strings"

	"github.com/seam-dev/seam/coding"
	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/timing"
	"github.com/tidwall/gjson"
)

// Reading one side of an exchange: its head, a decoded copy of a
// compressed body, framing and events, the assembly, what a failed
// response's body says.

// errorBodyHead is how much of a failed response's body is read for the
// provider's message: error bodies are short, a hostile one is not read
// whole.
const errorBodyHead = 64 << 10

// sameData reports whether two sides' chunks hold the same bytes, cut at
// the same places.
func sameData(a, b []tape.Chunk) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i].Data, b[i].Data) {
			return false
		}
	}
	return true
}

// inspectSide parses and assembles one side (open: still being recorded,
// Options.Live). up is the upstream side's report when this is the client
// side (else nil): when both sides carry the same event data (a
// pass-through proxy), the decoded payloads are shared, and when they are
// the same bytes cut at the same places (protocol.Side.Mirrors), so is the
// assembly. A compressed body is decoded within budget, the exchange's caps
// on decoded bytes.
func inspectSide(s tape.Side, sd *tape.SideData, url string, opts Options, reqT int64, up *SideReport, open bool, budget *coding.Budget) *SideReport {
	sr, ct, ce := sideHead(s, sd, reqT)
	chunks := sd.Chunks
	if ce != "" {
		var ok bool
		if chunks, ok = sr.decode(sd, ce, up, budget); !ok {
			return sr
		}
	}
	body, _ := sr.parse(chunks, ct, up, open)
	body = sr.assemble(chunks, body, url, opts, up)
	if failed(sr.Status) && sr.Message.Error == "" && (up == nil || sr.asm != up.asm) {
		// What the provider said: its SDK throws it for this status.
		if body == "" || len(body) > errorBodyHead {
			body = string(head(chunks, errorBodyHead))
		}
		sr.Message.Error = protocol.HTTPError(sd.Response.Headers, body)
	}
	sr.Metrics = timing.Of(sd.Chunks, sr.Message.Usage, stallOf(opts))
	return sr
}

// sideHead starts the report of side s from what its lines say: status,
// outcome, bytes, times; and returns its Content-Type (lower case) and
// Content-Encoding.
func sideHead(s tape.Side, sd *tape.SideData, reqT int64) (sr *SideReport, ct, ce string) {
	sr = &SideReport{Side: s, Chunks: len(sd.Chunks), TTFB: -1, Dur: -1}
	if sd.Response != nil {
		sr.Status = sd.Response.Status
		if v := sd.Response.Headers["content-type"]; len(v) > 0 {
			ct = strings.ToLower(v[0])
		}
		if v := sd.Response.Headers["content-encoding"]; len(v) > 0 {
			ce = strings.Join(v, ", ")
		}
	}
	if sd.End != nil {
		sr.Outcome, sr.Error = sd.End.Outcome, sd.End.Error
		sr.Dur = sd.End.T - reqT
	}
	// Bytes counts what the chunks hold, whatever the end line claims (a
	// tape.bytes-mismatch finding reports the claim).
	for _, c := range sd.Chunks {
		sr.Bytes += int64(len(c.Data))
	}
	if len(sd.Chunks) > 0 {
		sr.TTFB = sd.Chunks[0].T - reqT
	}
	return sr, ct, ce
}

// decode returns a decoded copy of a side sent with Content-Encoding ce;
// the chunks keep their index and time, offsets count decoded bytes. When
// nothing could be decoded it assembles the side as bytes of no protocol
// and returns false: the report of the side is done.
func (sr *SideReport) decode(sd *tape.SideData, ce string, up *SideReport, budget *coding.Budget) ([]tape.Chunk, bool) {
	sr.Encoding = ce
	var dec []tape.Chunk
	var err error
	if up != nil && up.decoded != nil && up.Encoding == ce && sameData(sd.Chunks, up.wire) {
		// The upstream side's bytes (a pass-through proxy): its
		// decoded copy, at this side's times, neither decoded nor
		// held twice.
		dec, err = make([]tape.Chunk, len(sd.Chunks)), up.codingErr
		for i, c := range up.decoded {
			w := sd.Chunks[i]
			dec[i] = tape.Chunk{Ex: w.Ex, Side: w.Side, T: w.T, Off: c.Off, Data: c.Data}
		}
	} else {
		dec, err = tape.DecodeChunks(sd.Chunks, ce, budget)
	}
	sr.codingErr, sr.wire, sr.decoded = err, sd.Chunks, dec
	if dec == nil {
		// A coding seam cannot decode: the bytes mean nothing to it.
		sr.ev = &protocol.Side{Chunks: sd.Chunks}
		sr.Stream = true
		sr.asm = protocol.Assemble(protocol.Unknown, sr.ev)
		sr.Message = &sr.asm.Message
		return nil, false
	}
	if len(dec) > 0 {
		last := dec[len(dec)-1]
		sr.Decoded = last.Off + int64(len(last.Data))
	}
	return dec, true
}

// parse chooses the side's framing (Content-Type ct, its first bytes) and
// splits chunks into events, reading them beside the upstream side's (up)
// when there is one. It returns the joined body when it had to join it, and
// whether the side is one JSON document rather than a stream.
func (sr *SideReport) parse(chunks []tape.Chunk, ct string, up *SideReport, open bool) (body string, document bool) {
	var twin *protocol.Side
	if up != nil {
		twin = up.ev
	}
	kind, mismatch := framing.Choose(ct, head(chunks, 64))
	sr.Framing, sr.mismatch = kind, mismatch
	if kind == framing.NDJSON && framing.FromContentType(ct) != framing.NDJSON {
		// JSON under a JSON (or no) Content-Type: a single document is a
		// non-stream body, several lines are NDJSON.
		if body = joinChunks(chunks); gjson.Valid(body) {
			kind, document = framing.Unknown, true
			sr.Framing = kind
		}
	}
	if document {
		// Read as the one JSON value it is, below: no events to parse.
		sr.ev = &protocol.Side{Chunks: chunks}
	} else {
		sr.ev = protocol.Parse(chunks, kind, twin)
		if open {
			openTail(sr.ev)
		}
	}
	sr.Events, sr.Comments = len(sr.ev.Events), len(sr.ev.Comments)
	sr.Stream = !document && (kind != framing.Unknown || !isJSONBody(ct, chunks, sr.ev))
	if sr.Stream && sr.Framing == framing.Unknown {
		sr.Framing = framing.SSE
	}
	return body, document
}

// assemble assembles the side in the protocol opts force, else the one its
// events (a stream) or its body (a document) and url say: a stream that
// mirrors the upstream side's (up) shares its assembly. It returns the
// body, joined when a document's assembly needed it.
func (sr *SideReport) assemble(chunks []tape.Chunk, body string, url string, opts Options, up *SideReport) string {
	p := opts.Protocol
	if p == "" {
		p = protocol.Unknown
	}
	if sr.Stream {
		if p == protocol.Unknown {
			p = protocol.Detect(url, sr.ev.Events)
		}
		if up != nil && up.Stream && up.assembled == p && sr.ev.Mirrors(up.ev) {
			// The upstream's events but for their times, which an
			// assembly does not read: its assembly, shared (read-only).
			sr.asm = up.asm
		} else {
			sr.asm = protocol.Assemble(p, sr.ev)
		}
		sr.assembled = p
	} else {
		if body == "" {
			body = sr.ev.Body // the joined body, when ParseSide built it
		}
		if body == "" {
			body = joinChunks(chunks)
		}
		if p == protocol.Unknown {
			if p = protocol.FromPayload(body); p == protocol.Unknown {
				p = protocol.FromURL(url)
			}
		}
		sr.asm = protocol.AssembleBody(p, body)
		sr.ev = &protocol.Side{Chunks: chunks}
		sr.Events = 0
		sr.Framing = framing.Unknown
	}
	sr.Message = &sr.asm.Message
	return body
}

// trueOffsets returns the side's data with every chunk's offset where its
// bytes really are in the body (the running sum), when the capture's
// offsets contradict the chunks (a tape.offset-gap), so the events'
// pointers name real body offsets.
func trueOffsets(x *tape.Exchange, s tape.Side, sd *tape.SideData) *tape.SideData {
	if !hasAnomaly(x, tape.AnomalyOffsetGap, s) {
		return sd
	}
	fixed := *sd
	fixed.Chunks = slices.Clone(sd.Chunks)
	off := int64(0)
	for i := range fixed.Chunks {
		fixed.Chunks[i].Off = off
		off += int64(len(fixed.Chunks[i].Data))
	}
	return &fixed
}

// timesLie reports whether the times of side s (or the request's) are
// contradicted by the capture, so no duration can be computed from them.
func timesLie(x *tape.Exchange, s tape.Side) bool {
	return hasAnomaly(x, tape.AnomalyTimeBackwards, s) || hasAnomaly(x, tape.AnomalyTimeBackwards, "")
}

func hasAnomaly(x *tape.Exchange, id string, s tape.Side) bool {
	for _, a := range x.Anomalies {
		if a.ID == id && a.Side == s {
			return true
		}
	}
	return false
}

// isJSONBody reports whether a side is a non-stream JSON body rather than
// an event stream.
func isJSONBody(ct string, chunks []tape.Chunk, ev *protocol.Side) bool {
	if strings.Contains(ct, "event-stream") {
		return false
	}
	if strings.Contains(ct, "json") {
		return true
	}
	if len(ev.Events) > 0 || len(chunks) == 0 {
		return false
	}
	return bytes.HasPrefix(bytes.TrimSpace(chunks[0].Data), []byte("{"))
}

// head returns up to n first bytes of the body the chunks make up.
func head(chunks []tape.Chunk, n int) []byte {
	if len(chunks) > 0 && len(chunks[0].Data) >= n {
		return chunks[0].Data[:n]
	}
	var b []byte
	for i := 0; i < len(chunks) && len(b) < n; i++ {
		b = append(b, chunks[i].Data[:min(len(chunks[i].Data), n-len(b))]...)
	}
	return b
}

// joinChunks returns the body the chunks make up.
func joinChunks(chunks []tape.Chunk) string {
	n := 0
	for _, c := range chunks {
		n += len(c.Data)
	}
	var b strings.Builder
	b.Grow(n)
	for _, c := range chunks {
		b.Write(c.Data)
	}
	return b.String()
}
