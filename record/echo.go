package record

import (
	"bytes"
	"fmt"

	"github.com/seam-dev/seam/coding"
	"github.com/seam-dev/seam/tape"
)

// echoGuard records the chunks of a compressed side. A tape.Masker finds
// the request's secret values where a response echoes them, but not inside
// compressed bytes, and compressed bytes cannot be masked in place. So the
// guard checks the copy the side's watch decodes, holding the wire chunks
// back until what they decode to is known clean. A decompressor emits the
// data of all the bytes it consumed when it gives output (flate at a
// block end or a full window, zstd per block, brotli as it goes), and the
// watch's decoder gives all it can before it asks for the next wire chunk;
// so once everything chunk j decoded to is known clean (and is not
// empty), the chunks before j are safe to write; chunk j and later may
// still hold bytes of data not yet given. When the decoded body echoes a
// secret, every chunk still held and every later one are not written, and
// a note says so: nothing of the secret reaches the disk, at the cost of
// the rest of that side's evidence.
//
// The watch's decoder stops at a cap (see streamWatch), and then gives
// only part of what the chunk being decoded stands for: that chunk's
// output proves nothing, and past it nothing can be checked. When the
// guard looks for anything, the chunks from the last proven one on are
// not written, as for an echo; when it looks for nothing (no secret in the
// request, no --redact pattern), they are written as they come. Either
// way a note names the cap.
//
// The decoded copy goes through the masker a piece at a time and is not
// kept: what the guard holds is the wire chunks and one record per piece.
type echoGuard struct {
	write    func(tape.Chunk)
	withhold func(n int64) // counts wire bytes not written
	watch    *streamWatch  // decodes the copy checked
	m        *tape.Masker
	pend     []guarded
	got      int   // held entries the masker released
	off      int64 // decoded bytes so far
	end      int64 // wire bytes so far
	masked   int   // the masker's count of masked echoes when last looked at
	// cut is the offset of the first wire byte not written, -1 while
	// every chunk was.
	cut     int64
	dropped int64
	// unchecked is set once the decoded copy passed its cap while the
	// guard looked for nothing: the chunks are written as they come.
	unchecked bool
}

// guarded is what the guard holds, in order: a piece of the decoded copy
// (output set, no wire data), or a wire chunk, after the pieces it decoded
// to. Each goes through the masker (a wire chunk as no bytes), and is done
// once the masker released it.
type guarded struct {
	wire   tape.Chunk
	output bool
	done   bool
}

// newEchoGuard returns a guard writing a compressed side through write
// (and counting the bytes it does not write through withhold), looking for
// secrets (more come through add); the side's stream watch decodes the
// copy it checks, handing each piece of it to the guard.
func newEchoGuard(watch *streamWatch, secrets []string, red *tape.Redaction, write func(tape.Chunk), withhold func(int64)) *echoGuard {
	g := &echoGuard{write: write, withhold: withhold, watch: watch, cut: -1}
	g.m = tape.NewMasker(secrets, red, g.release)
	watch.onDecoded = g.piece
	return g
}

// add looks for more secret values (a request body's, known later). A
// guard that had stopped checking at the cap can no longer: it writes no
// more chunks once it has something to look for.
func (g *echoGuard) add(secrets []string) {
	g.m.Add(secrets)
	if g.unchecked && g.cut < 0 && g.m.Looking() {
		g.cut = g.end
	}
}

// piece takes the next piece of the side's decoded copy (valid during the
// call).
func (g *echoGuard) piece(out []byte) {
	if g.cut >= 0 || g.unchecked || len(out) == 0 {
		return
	}
	g.push(tape.Chunk{}, out)
	if g.echoed() {
		g.drop()
	}
}

// chunk takes the side's next wire chunk, which the watch has just
// decoded (its pieces came before it).
func (g *echoGuard) chunk(c tape.Chunk) {
	if g.cut < 0 && !g.unchecked && g.watch.capped() != nil {
		g.passCap() // this chunk, which decoded past the cap, is held too
	}
	c.Off = g.end
	g.end += int64(len(c.Data))
	switch {
	case g.cut >= 0:
		g.dropped += int64(len(c.Data))
		g.withhold(int64(len(c.Data)))
		return
	case g.unchecked:
		g.write(c)
		return
	}
	c.Data = bytes.Clone(c.Data)
	g.push(c, nil)
	g.settle(false)
}

// passCap settles the guard once the decoded copy has passed its cap: what
// was decoded up to it is checked, the chunks proven clean before it are
// written, and those still held are written, when the guard looks for
// nothing, or not.
func (g *echoGuard) passCap() {
	g.m.Flush()
	switch {
	case g.echoed():
		g.drop()
	case !g.m.Looking():
		g.settle(true)
		g.unchecked = true
	default:
		g.settle(false) // the pieces of the chunk being decoded prove nothing
		g.drop()
	}
}

// push hands decoded bytes to the masker, in the order of what it holds.
func (g *echoGuard) push(c tape.Chunk, out []byte) {
	g.pend = append(g.pend, guarded{wire: c, output: len(out) > 0})
	g.m.Chunk(tape.Chunk{Ex: c.Ex, Side: c.Side, T: c.T, Off: g.off, Data: out})
	g.off += int64(len(out))
}

// release is the masker's emit: what it was given comes back in order.
func (g *echoGuard) release(tape.Chunk) {
	g.pend[g.got].done = true
	g.got++
}

// echoed reports whether the masker masked an echo since it was last
// asked: whatever is held may hold bytes of it.
func (g *echoGuard) echoed() bool {
	n := g.m.Masked()
	echoed := n > g.masked
	g.masked = n
	return echoed
}

// settle writes the held wire chunks known safe: those before the last
// wire chunk whose pieces, one at least, are all released clean (every
// chunk, at the end of a clean side).
func (g *echoGuard) settle(final bool) {
	if g.echoed() {
		g.drop()
		return
	}
	n := 0
	if final {
		n = len(g.pend)
	} else {
		start, output := 0, false // the pieces since the last wire chunk
		for i := 0; i < g.got; i++ {
			if g.pend[i].output {
				output = true
				continue
			}
			if output {
				n = start // the chunks before these pieces are safe
			}
			start, output = i+1, false
		}
	}
	for _, p := range g.pend[:n] {
		if !p.output {
			g.write(p.wire)
		}
	}
	g.pend = append(g.pend[:0], g.pend[n:]...)
	g.got -= n
}

// drop withholds every wire chunk still held, and every later one.
func (g *echoGuard) drop() {
	g.cut = g.end
	for _, p := range g.pend {
		if !p.output {
			g.cut = min(g.cut, p.wire.Off)
			g.dropped += int64(len(p.wire.Data))
			g.withhold(int64(len(p.wire.Data)))
		}
	}
	g.pend, g.got = nil, 0
}

// close ends the side once its watch is closed (its last pieces are in):
// every chunk still held is written or dropped, and a note is returned
// when some were dropped or the decoded copy passed its cap ("" otherwise).
func (g *echoGuard) close(side tape.Side) string {
	capped := g.watch.capped()
	if capped != nil && g.cut < 0 && !g.unchecked {
		g.passCap()
	}
	if g.cut < 0 && !g.unchecked {
		g.m.Flush()
		g.settle(true)
	}
	switch {
	case capped != nil && g.cut >= 0:
		return fmt.Sprintf("seam: the %s side's body is compressed and decodes past seam's cap of %s decoded per %s: the copy seam checks for the request's secret values stops there, so its chunks from byte %d on (%d bytes), which hold bytes past the cap or decode past it, were not recorded",
			side, coding.Size(capped.Cap), capped.Per, g.cut, g.dropped)
	case capped != nil:
		return fmt.Sprintf("seam: the %s side's body is compressed and decodes past seam's cap of %s decoded per %s: seam's watch stopped decoding there, so its events and its end are told from the bytes before the cap; the request carried no secret value to look for, and every chunk was recorded",
			side, coding.Size(capped.Cap), capped.Per)
	case g.cut >= 0:
		return fmt.Sprintf("seam: the %s side's body is compressed and its decoded copy echoes a secret value of the request; compressed bytes cannot be masked in place, so its chunks from byte %d on (%d bytes) were not recorded", side, g.cut, g.dropped)
	}
	return ""
}
