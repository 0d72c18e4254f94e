package tape

import "fmt"

// exCheck is what a [Decoder] keeps of an exchange whose sides have not both
// ended: the last two upstream chunks, which a client chunk may refer to,
// and the running hash of each side, which its end line is checked against.
type exCheck struct {
	h       sideHashes
	upEnded bool
	clEnded bool
	last    [2]upData // last[0] the latest
}

// upData is an upstream chunk's data at its offset.
type upData struct {
	data []byte
	off  int64
	ok   bool
	// dropped is set when the chunk was not kept (see maxKeptChunks).
	dropped bool
}

// maxOpenChecks bounds the exchanges a Decoder follows at once; a capture
// with more exchanges open at the same time (none is recorded so) is read
// without checking the exchanges past the bound.
const maxOpenChecks = 1 << 16

// maxKeptChunks bounds the upstream chunk bytes a Decoder keeps for
// references, over all the exchanges it follows: a recording keeps a few
// MB (hundreds of exchanges open, a chunk or two of KB each). Past it, an
// exchange's chunk before the last is not kept, then not its last either,
// and a reference to what was not kept is an error saying so.
const maxKeptChunks = 64 << 20

// check resolves a chunk reference and verifies each side's hash at its end
// line. A reference that cannot be resolved is an error; a hash that does
// not match is a warning, and the record is kept.
func (d *Decoder) check(rec *Record) error {
	switch rec.Kind {
	case KindChunk:
		c := rec.Chunk
		x := d.open[c.Ex]
		if x == nil {
			x = d.track(c.Ex)
		}
		if c.Ref && !c.mirror {
			var data []byte
			ok := false
			if x != nil {
				data, ok = x.resolve(c.RefOff, c.refLen)
			}
			switch {
			case ok:
			case x != nil && (x.last[0].dropped || x.last[1].dropped):
				return fmt.Errorf("chunk refers to upstream bytes %d to %d of exchange %d, which the reader did not keep: the exchanges open at this line hold more than %d MiB of upstream chunks", c.RefOff, c.RefOff+c.refLen, c.Ex, maxKeptChunks>>20)
			case x == nil || !x.last[0].ok:
				return fmt.Errorf("chunk refers to upstream bytes %d to %d, but exchange %d has no upstream chunk before it", c.RefOff, c.RefOff+c.refLen, c.Ex)
			default:
				u := x.last[0]
				return fmt.Errorf("chunk refers to upstream bytes %d to %d, outside the last two upstream chunks of exchange %d (the last is bytes %d to %d)",
					c.RefOff, c.RefOff+c.refLen, c.Ex, u.off, u.off+int64(len(u.data)))
			}
			c.Data = data
			c.refLen = 0
		}
		if x == nil {
			c.Ref, c.RefOff, c.mirror = false, 0, false
			return nil
		}
		if d.header.V >= 2 { // version 1 has no hashes to check
			if c.Side == Upstream {
				x.h.upstream(c.Data)
			} else {
				x.h.client(c.Data, c.Ref, c.RefOff)
			}
		}
		if c.Side == Upstream {
			d.keep(x, c)
		}
		// A reader sees bytes: written again, anywhere, the chunk holds
		// them (a reference is only valid right after its upstream chunk).
		c.Ref, c.RefOff, c.mirror = false, 0, false
	case KindEnd:
		e := rec.End
		x := d.open[e.Ex]
		if x == nil {
			if d.untracked {
				return nil // not followed: nothing known to check against
			}
			if x = d.track(e.Ex); x == nil {
				return nil
			}
		}
		ended, n := &x.upEnded, x.h.upN
		if e.Side == Client {
			ended, n = &x.clEnded, x.h.clN
		}
		if e.SHA256 != "" && e.Unrecorded == 0 && !*ended {
			if got, ok := x.h.sum(e.Side); ok && got != e.SHA256 {
				d.warnings = append(d.warnings, &LineError{File: d.name, Line: d.line, Err: fmt.Errorf(
					"exchange %d: the %s side's %d bytes (its chunks joined in order) have SHA-256 %.12s…, its end line says %.12s…: the capture lost or altered bytes",
					e.Ex, e.Side, n, got, e.SHA256)})
			}
		}
		*ended = true
		if x.upEnded && x.clEnded {
			d.kept -= int64(len(x.last[0].data) + len(x.last[1].data))
			delete(d.open, e.Ex)
		}
	}
	return nil
}

// keep keeps upstream chunk c as x's last, and the last as the one before
// it, within maxKeptChunks.
func (d *Decoder) keep(x *exCheck, c *Chunk) {
	d.kept -= int64(len(x.last[1].data))
	x.last[1] = x.last[0]
	x.last[0] = upData{data: c.Data, off: c.Off, ok: true}
	d.kept += int64(len(c.Data))
	if d.kept > maxKeptChunks {
		d.kept -= int64(len(x.last[1].data))
		x.last[1] = upData{}
	}
	if d.kept > maxKeptChunks {
		d.kept -= int64(len(c.Data))
		x.last[0] = upData{off: c.Off, dropped: true}
	}
}

// resolve returns the upstream bytes from off, n of them, when they lie
// within one of the last two upstream chunks.
func (x *exCheck) resolve(off, n int64) ([]byte, bool) {
	for _, u := range x.last {
		lo := off - u.off
		hi := lo + n
		if u.ok && lo >= 0 && hi <= int64(len(u.data)) && hi >= lo {
			return u.data[lo:hi:hi], true
		}
	}
	return nil, false
}

// track starts following exchange ex, or returns nil when too many are
// followed already.
func (d *Decoder) track(ex int) *exCheck {
	if len(d.open) >= maxOpenChecks {
		d.untracked = true
		return nil
	}
	x := &exCheck{}
	d.open[ex] = x
	return x
}
