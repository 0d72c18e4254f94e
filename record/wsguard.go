package record

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/gobwas/ws"

	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/wsframe"
)

// wsGuard records one direction of a WebSocket connection, frame by frame,
// with secret values masked where its messages hold them. A masker over
// the wire bytes finds nothing in a client's frames (masked by RFC 6455),
// in a compressed message (permessage-deflate) or in a secret cut across
// two frames, so the guard holds each message's frames back until the
// message is whole, then looks at its payload as a reader decodes it:
// unmasked, joined, inflated. A value found is masked at the same length,
// in place (the frames unmasked, masked, masked again with their key); a
// compressed message holding one is deflated again, masked, into one frame
// that refers to no earlier message (its inflated length is the same, so
// the later messages that refer back into it still inflate, to the masked
// bytes where they repeat the secret). The client's messages also have
// their secret JSON fields masked, as a request body's are (session.update
// with an api_key), and the values join the secrets both directions look
// for. What cannot be checked (a message past the caps, a compressed
// message that holds a secret in what inflates of it but does not inflate
// whole) is not recorded, nor is anything after it on that side, and a
// note says why: nothing of a secret reaches the disk.
type wsGuard struct {
	x     *exchange
	side  tape.Side
	opts  wsframe.Options
	write func(tape.Chunk)
	// raw is the side's masker, for bytes that are not frames.
	raw *tape.Masker
	// m looks for the secret values in a message's payload; out is what
	// it handed back of the payload last given.
	m   *tape.Masker
	out []byte
	// conn is the connection, whose secrets both directions share.
	conn *wsConn
	// inf inflates as the sender compressed; mirror as a reader of the
	// capture will, once a message deflated again has left masked bytes
	// in its window (diverged): a later message referring back into them
	// inflates to other bytes there.
	inf, mirror wsframe.Inflater
	diverged    bool
	back        []byte // scratch: the reader's window before a message

	queue []wsPiece // pieces held back, in wire order
	open  *wsUnit   // the data message whose final frame has not come
	cur   *wsUnit   // the unit of the frame whose pieces are coming
	pay   []byte    // scratch: a unit's payload
	buf   []byte    // scratch: an inflated payload
	wire  int64     // wire bytes seen
	// reserved is what the held pieces took of the recorder's budget.
	reserved int64

	cut      int64 // the wire offset nothing is recorded from; -1
	why      string
	withheld int64
	// masked counts the values masked, deflated the compressed messages
	// deflated again.
	masked, deflated int
}

// wsPiece is a piece of a frame held back.
type wsPiece struct {
	t    int64
	off  int64 // wire offset
	data []byte
	at   int64 // offset of data[0] in its frame
	hdr  wsframe.Header
	unit *wsUnit
}

// wsUnit is what the guard checks as one: a data message, its frames
// joined, or a single control (or stray) frame.
type wsUnit struct {
	opcode     wsframe.Opcode
	compressed bool
	held       int64 // bytes of its pieces held
	pieces     int   // its pieces still in the queue
	done       bool
	// replace, when set, is written in place of its pieces (at the last).
	replace []byte
	first   wsframe.Header
}

// maxHeld bounds the bytes of one message held back, and inflated, to be
// checked: the Realtime API takes up to 15 MiB of audio in one message,
// 20 MiB as base64.
const maxHeld = 32 << 20

// Beyond wsFree bytes, what a message holds back and inflates is taken
// from a budget of maxHeldWebSocket bytes all the recorder's WebSocket
// connections share, so that many connections sending big messages at
// once cannot take the recorder's memory.
const (
	wsFree           = 1 << 20
	maxHeldWebSocket = 256 << 20
)

func newWSGuard(x *exchange, c *wsConn, side tape.Side, opts wsframe.Options) *wsGuard {
	g := &wsGuard{x: x, side: side, opts: opts, write: x.write(side), raw: x.mask(side), conn: c, cut: -1}
	x.guardMu.Lock()
	secrets := x.secrets
	x.guardMu.Unlock()
	g.m = tape.NewMasker(secrets, x.rec.opts.Redaction, func(c tape.Chunk) { g.out = append(g.out, c.Data...) })
	g.inf.NoContextTakeover = opts.NoContextTakeover
	g.mirror.NoContextTakeover = opts.NoContextTakeover
	return g
}

// piece takes the next piece the side's splitter handed out, which
// arrived at t.
func (g *wsGuard) piece(p wsframe.Piece, t int64) {
	off := g.wire
	g.wire += int64(len(p.Data))
	if g.cut >= 0 {
		g.drop(int64(len(p.Data)))
		return
	}
	if p.Raw {
		// The stream stopped being frames: what was open ends here, and
		// the rest goes through the side's masker as bytes.
		g.end()
		if g.cut < 0 {
			g.raw.Chunk(tape.Chunk{Side: g.side, T: t, Data: p.Data})
		} else {
			g.drop(int64(len(p.Data)))
		}
		return
	}
	if p.At == 0 {
		g.cur = g.unitOf(p.Frame)
		if g.cut >= 0 { // an interrupted message was withheld
			g.drop(int64(len(p.Data)))
			return
		}
	}
	u := g.cur
	u.held += int64(len(p.Data))
	u.pieces++
	g.queue = append(g.queue, wsPiece{t: t, off: off, data: append([]byte(nil), p.Data...), at: p.At, hdr: p.Frame, unit: u})
	if u.held > maxHeld {
		g.withhold(fmt.Sprintf("a message there is longer than the %d bytes seam holds back to look for secret values in", maxHeld))
		return
	}
	if over := min(u.held-wsFree, int64(len(p.Data))); over > 0 {
		got := g.x.rec.wsHeld.take(over)
		g.reserved += got
		if got < over {
			g.withhold(busy)
			return
		}
	}
	if p.Last {
		if u != g.open || p.Frame.Fin {
			g.resolve(u, true)
		}
		g.cur = nil
	}
	g.flush()
}

// unitOf returns the unit a frame with header h belongs to.
func (g *wsGuard) unitOf(h wsframe.Header) *wsUnit {
	switch {
	case h.Opcode == wsframe.Text || h.Opcode == wsframe.Binary:
		if g.open != nil {
			// A new message before the last one ended: a reader takes
			// that one as it stands.
			g.resolve(g.open, false)
			g.flush()
		}
		g.open = &wsUnit{opcode: h.Opcode, compressed: h.Rsv1, first: h}
		return g.open
	case h.Opcode == wsframe.Continuation && g.open != nil:
		return g.open
	}
	return &wsUnit{opcode: h.Opcode, first: h}
}

// end resolves what is still open as it stands: the stream ended, or
// stopped being frames.
func (g *wsGuard) end() {
	for _, u := range []*wsUnit{g.open, g.cur} {
		if u != nil && !u.done && g.cut < 0 {
			g.resolve(u, false)
		}
	}
	g.open, g.cur = nil, nil
	g.flush()
}

// resolve checks unit u, whole or (at the end) as far as it came, masking
// what it holds of the secrets, or withholding it when it cannot be
// checked.
func (g *wsGuard) resolve(u *wsUnit, whole bool) {
	if u == g.open {
		g.open = nil
	}
	payload := g.payload(u)
	fields := g.side == tape.Client && u.opcode == wsframe.Text
	if !u.compressed {
		if g.check(payload, fields) {
			g.putPayload(u, payload)
		}
		u.done = true
		return
	}
	limit, left := maxHeld, wsframe.DefaultMaxInflate-g.conn.inflated.Load()
	session := int64(limit) > left
	if session {
		limit = int(max(left, 0))
	}
	// What inflates past wsFree bytes is taken from the budget.
	lent := g.x.rec.wsHeld.take(int64(max(limit-wsFree, 0)))
	defer g.x.rec.wsHeld.give(lent)
	short := int64(limit) > wsFree+lent
	if short {
		limit = wsFree + int(lent)
	}
	out, err := g.inf.Inflate(g.buf[:0], payload, limit)
	g.buf = out[:0]
	if cap(g.buf) > wsFree {
		g.buf = nil // not held between messages
	}
	g.conn.inflated.Add(int64(len(out)))
	var ce *wsframe.CapError
	switch {
	case errors.As(err, &ce) && short:
		g.withhold(busy)
		return
	case errors.As(err, &ce) && session:
		g.withhold(fmt.Sprintf("the session's compressed messages inflate to more than %d bytes, the cap seam inflates to look for secret values", wsframe.DefaultMaxInflate))
		return
	case ce != nil:
		g.withhold(fmt.Sprintf("a compressed message there inflates to more than %d bytes, the cap seam inflates to look for secret values", limit))
		return
	case err != nil || !whole:
		// What inflated of it is what any reader gets: clean, it is
		// recorded as it came; holding a secret, it cannot be masked.
		// What the sender refers back to is unknown from here, to any
		// reader.
		g.inf.Forget()
		g.mirror.Forget()
		g.diverged = false
		if g.check(out, fields) {
			g.withhold("a compressed message there holds a secret value and does not inflate whole, so it cannot be masked")
			return
		}
	default:
		g.rewrite(u, payload, out, fields)
	}
	u.done = true
}

// rewrite records a compressed message that inflated whole to out: as it
// came, unless it holds a secret value (then deflated again, masked) or a
// reader would inflate it to other bytes, its window holding masked bytes
// where the sender's held a secret (then deflated again as it is, to refer
// back to nothing).
func (g *wsGuard) rewrite(u *wsUnit, payload, out []byte, fields bool) {
	var before []byte
	if g.diverged {
		before = append(g.back[:0], g.mirror.Window()...)
		g.back = before
	}
	switch {
	case g.check(out, fields):
		u.replace = g.deflate(u, out)
		if !g.opts.NoContextTakeover {
			if !g.diverged {
				before = append(g.back[:0], g.inf.Window()...)
				before = before[:len(before)-min(len(out), len(before))]
				g.back = before
			}
			g.mirror.SetWindow(append(before, out...))
			g.diverged = true
		}
	case g.diverged:
		seen, err := g.mirror.Inflate(nil, payload, len(out))
		if err != nil || !bytes.Equal(seen, out) {
			u.replace = g.deflate(u, out)
			g.mirror.SetWindow(append(before, out...))
		}
	}
	if g.diverged && bytes.Equal(g.mirror.Window(), g.inf.Window()) {
		g.diverged = false
	}
}

// deflate returns the frame that replaces unit u: its payload out
// deflated again, referring back to no earlier message.
func (g *wsGuard) deflate(u *wsUnit, out []byte) []byte {
	g.deflated++
	h := wsframe.Header{Fin: true, Rsv1: true, Opcode: u.opcode, Masked: u.first.Masked, Mask: u.first.Mask}
	return wsframe.AppendFrame(nil, h, wsframe.Deflate(nil, out))
}

// check masks, in b, the values of secret fields (when fields is set: a
// client's text message) and the secret values, and reports whether it
// masked any.
func (g *wsGuard) check(b []byte, fields bool) bool {
	n := 0
	if fields {
		var secrets []string
		n, secrets = g.x.rec.opts.Redaction.MaskFields(b)
		if len(secrets) > 0 {
			g.conn.addSecrets(secrets)
		}
	}
	before := g.m.Masked()
	g.out = g.out[:0]
	g.m.Chunk(tape.Chunk{Side: g.side, Data: b})
	g.m.Flush()
	if k := g.m.Masked() - before; k > 0 {
		copy(b, g.out)
		n += k
	}
	g.masked += n
	return n > 0
}

// payload returns unit u's payload, unmasked, from its pieces held.
func (g *wsGuard) payload(u *wsUnit) []byte {
	b := g.pay[:0]
	for i := range g.queue {
		p := &g.queue[i]
		if p.unit != u {
			continue
		}
		from := max(int64(p.hdr.Size)-p.at, 0)
		if from >= int64(len(p.data)) {
			continue
		}
		start := len(b)
		b = append(b, p.data[from:]...)
		if p.hdr.Masked {
			ws.Cipher(b[start:], p.hdr.Mask, int((p.at+from-int64(p.hdr.Size))%4))
		}
	}
	g.pay = b
	return b
}

// putPayload writes b, unit u's payload masked where it held secrets,
// back into its pieces, masked again with their key.
func (g *wsGuard) putPayload(u *wsUnit, b []byte) {
	for i := range g.queue {
		p := &g.queue[i]
		if p.unit != u {
			continue
		}
		from := max(int64(p.hdr.Size)-p.at, 0)
		if from >= int64(len(p.data)) {
			continue
		}
		seg := p.data[from:]
		n := copy(seg, b)
		b = b[n:]
		if p.hdr.Masked {
			ws.Cipher(seg, p.hdr.Mask, int((p.at+from-int64(p.hdr.Size))%4))
		}
	}
}

// flush writes the pieces at the head of the queue whose units are
// checked.
func (g *wsGuard) flush() {
	n := 0
	for ; n < len(g.queue) && g.queue[n].unit.done; n++ {
		p := &g.queue[n]
		u := p.unit
		u.pieces--
		switch {
		case u.replace == nil:
			g.write(tape.Chunk{Side: g.side, T: p.t, Data: p.data})
		case u.pieces == 0:
			for r := u.replace; len(r) > 0; {
				k := min(len(r), wsframe.DefaultMaxChunk)
				g.write(tape.Chunk{Side: g.side, T: p.t, Data: r[:k]})
				r = r[k:]
			}
		}
	}
	g.queue = append(g.queue[:0], g.queue[n:]...)
	if len(g.queue) == 0 {
		g.release()
	}
}

// release gives back what the held pieces took of the recorder's budget,
// and drops scratch space a big message grew.
func (g *wsGuard) release() {
	g.x.rec.wsHeld.give(g.reserved)
	g.reserved = 0
	if cap(g.pay) > wsFree {
		g.pay = nil
	}
}

// busy is why a message is withheld when the recorder's budget for
// WebSocket messages held back is used up.
var busy = fmt.Sprintf("the WebSocket messages all connections held back to look for secret values in took the %d bytes seam gives them", maxHeldWebSocket)

// withhold stops recording the side at the first piece held back: it and
// every later byte are counted as unrecorded, and why says why.
func (g *wsGuard) withhold(why string) {
	g.flush()
	g.cut = g.wire
	if len(g.queue) > 0 {
		g.cut = g.queue[0].off
	}
	g.why = why
	for _, p := range g.queue {
		g.drop(int64(len(p.data)))
	}
	g.queue, g.open, g.cur = nil, nil, nil
	g.release()
}

// drop counts n wire bytes not recorded.
func (g *wsGuard) drop(n int64) {
	g.withheld += n
	g.x.tw.Withhold(g.side, n)
}

// finish ends the side: what is still open is checked as it stands and
// written, and the note saying what the guard masked or withheld is
// returned ("" when nothing).
func (g *wsGuard) finish() string {
	if g.cut < 0 {
		g.end()
	}
	var note string
	if g.masked > 0 {
		note = fmt.Sprintf("seam: %d secret value(s), of the request or of the client's messages, were masked at the same length (\"[redacted]***\") in the %s side's WebSocket messages", g.masked, g.side)
		if g.deflated > 0 {
			note += fmt.Sprintf("; %d compressed message(s), holding one or referring back to one, were deflated again (masked), so their frames and the offsets after them differ from the wire's", g.deflated)
		}
	}
	if g.cut >= 0 {
		if note != "" {
			note += "; "
		}
		note += fmt.Sprintf("seam: the %s side's WebSocket frames from byte %d on (%d bytes) were not recorded: %s", g.side, g.cut, g.withheld, g.why)
	}
	return note
}

// addSecrets adds secret values found in a client's message to what both
// directions look for.
func (c *wsConn) addSecrets(secrets []string) {
	for _, d := range []*wsDirection{&c.up, &c.down} {
		if d.guard != nil {
			d.guard.m.Add(secrets)
		}
	}
}
