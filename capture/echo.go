package capture

import (
	"bytes"
	"fmt"

	"github.com/seam-dev/seam/tape"
)

// echoGuard records the chunks of a compressed side. A tape.Masker finds
// the request's secret values where a response echoes them, but not inside
// compressed bytes, and compressed bytes cannot be masked in place. So the
// guard decodes a copy and runs the masker over it, holding the wire chunks
// back until what they decode to is known clean: a decompressor emits the
// data of all the bytes it consumed before an output it gives (flate at a
// block end or a full window, zstd per block, brotli as it goes), so once
// the output given while reading chunk i is clean, the chunks before i are
// safe to write; chunk i and later may still hold bytes of data not yet
// given. When the decoded body echoes a secret, every chunk still held and
// every later one are not written, and a note says so: nothing of the
// secret reaches the disk, at the cost of the rest of that side's
// evidence.
type echoGuard struct {
	write    func(tape.Chunk)
	withhold func(n int64) // counts wire bytes not written
	watch    *streamWatch  // decodes the copy checked
	m        *tape.Masker
	pend     []guarded
	got      int   // held chunks whose decoded output the masker released
	off      int64 // decoded bytes so far
	end      int64 // wire bytes so far
	// cut is the offset of the first wire byte not written, -1 while
	// every chunk was.
	cut     int64
	dropped int64
}

// guarded is a wire chunk (nil data for the decoder's final output) with
// what it decoded to and, once the masker released that, whether it was
// clean.
type guarded struct {
	wire    tape.Chunk
	decoded []byte
	done    bool
	clean   bool
}

// newEchoGuard returns a guard writing a compressed side through write
// (and counting the bytes it does not write through withhold), looking for
// secrets (more come through add); the side's stream watch decodes the
// copy it checks.
func newEchoGuard(watch *streamWatch, secrets []string, red *tape.Redaction, write func(tape.Chunk), withhold func(int64)) *echoGuard {
	g := &echoGuard{write: write, withhold: withhold, watch: watch, cut: -1}
	g.m = tape.NewMasker(secrets, red, g.release)
	return g
}

// add looks for more secret values (a request body's, known later).
func (g *echoGuard) add(secrets []string) { g.m.Add(secrets) }

// chunk takes the side's next wire chunk, which the watch has just
// decoded.
func (g *echoGuard) chunk(c tape.Chunk) {
	out := g.watch.decoded
	c.Off = g.end
	g.end += int64(len(c.Data))
	if g.cut >= 0 {
		g.drop(int64(len(c.Data)))
		return
	}
	c.Data = bytes.Clone(c.Data)
	g.push(c, out)
	g.settle(false)
}

// push hands one decoded chunk to the masker, remembering its wire chunk.
func (g *echoGuard) push(c tape.Chunk, out []byte) {
	g.pend = append(g.pend, guarded{wire: c, decoded: bytes.Clone(out)})
	g.m.Chunk(tape.Chunk{Ex: c.Ex, Side: c.Side, T: c.T, Off: g.off, Data: out})
	g.off += int64(len(out))
}

// release is the masker's emit: the decoded chunks come back in order,
// masked where they echoed a secret.
func (g *echoGuard) release(d tape.Chunk) {
	p := &g.pend[g.got]
	p.done, p.clean = true, bytes.Equal(d.Data, p.decoded)
	g.got++
}

// settle writes the held wire chunks known safe: those before the last
// released, clean chunk that gave output (all of them at the end). A
// released chunk that echoed a secret drops every chunk still held.
func (g *echoGuard) settle(final bool) {
	for _, p := range g.pend {
		if p.done && !p.clean {
			g.cut = g.pend[0].wire.Off
			for _, q := range g.pend {
				g.drop(int64(len(q.wire.Data)))
			}
			g.pend, g.got = nil, 0
			return
		}
	}
	n := 0
	if final {
		n = len(g.pend)
	} else {
		for i := 0; i < len(g.pend) && g.pend[i].done; i++ {
			if len(g.pend[i].decoded) > 0 {
				n = i
			}
		}
	}
	for _, p := range g.pend[:n] {
		if p.wire.Data != nil {
			g.write(p.wire)
		}
	}
	g.pend = g.pend[n:]
	g.got -= n
}

// drop counts n wire bytes not written.
func (g *echoGuard) drop(n int64) {
	g.dropped += n
	g.withhold(n)
}

// close ends the side once its watch is closed: what the decoder gave at
// the end of the body is checked, every chunk still held is written or
// dropped, and a note is returned when some were dropped ("" otherwise).
func (g *echoGuard) close(side tape.Side) string {
	out := g.watch.decoded
	if g.cut < 0 {
		// The final output has no wire chunk of its own (nil data): it
		// stands for the chunks still held.
		g.push(tape.Chunk{Side: side, Off: g.end}, out)
		g.m.Flush()
		g.settle(true)
	}
	if g.cut < 0 {
		return ""
	}
	return fmt.Sprintf("seam: the %s side's body is compressed and its decoded copy echoes a secret value of the request; compressed bytes cannot be masked in place, so its chunks from byte %d on (%d bytes) were not recorded", side, g.cut, g.dropped)
}
