package tape

import (
	"fmt"
	"time"
)

// run is the writer goroutine: it takes the slabs that are waiting, writes
// each in one call and repeats until closed.
func (w *Writer) run() {
	defer close(w.done)
	defer func() {
		// A panic here is a bug in seam; the process it records for goes on
		// serving: recording stops, as on a write error, and says so.
		if v := recover(); v != nil {
			w.fail(fmt.Errorf("write capture: panic in the capture writer: %v", v))
			w.mu.Lock()
			w.closed = true
			w.room.Broadcast()
			w.mu.Unlock()
		}
	}()
	var (
		taken  []*slab
		bufs   [][]byte
		dirty  bool // compressed lines not flushed yet
		failed bool
		timer  *time.Timer
		timerC <-chan time.Time
	)
	for {
		w.mu.Lock()
		for len(w.slabs) == 0 && !w.closed {
			w.mu.Unlock()
			if dirty && timerC == nil {
				timer = time.NewTimer(flushDelay)
				timerC = timer.C
			}
			select {
			case <-w.wake:
			case <-timerC:
				timerC = nil
				if !failed && dirty {
					if err := w.flush(); err != nil {
						failed = w.fail(fmt.Errorf("write capture: %w", err))
					}
				}
				dirty = false
			}
			w.mu.Lock()
		}
		var closing bool
		if taken, closing = w.take(taken); closing {
			break
		}
		ended := false
		switch {
		case failed:
		case w.batch != nil:
			// Every slab waiting in one call: the writer goroutine waits
			// for the scheduler once per call, and a busy proxy has
			// hundreds of goroutines ahead of it.
			ended, failed = w.writeSlabs(taken, &bufs)
		default:
			var wrote bool
			if ended, wrote, failed = w.writeEach(taken); wrote {
				dirty = w.flush != nil
			}
		}
		if ended && dirty && !failed {
			if err := w.flush(); err != nil {
				failed = w.fail(fmt.Errorf("write capture: %w", err))
			}
			dirty = false
		}
		w.giveBack(taken)
	}
	if timer != nil {
		timer.Stop()
	}
	if !failed {
		failed = !w.finish()
	}
	if w.keeping != nil {
		w.handRest(failed)
	}
}

// take moves the queued slabs into taken, reusing its array, and
// releases w.mu, which the caller holds; closing says the writer is closed
// with nothing left to write.
func (w *Writer) take(taken []*slab) (_ []*slab, closing bool) {
	taken = append(taken[:0], w.slabs...)
	clear(w.slabs)
	w.slabs = w.slabs[:0]
	closing = w.closed && len(taken) == 0
	w.mu.Unlock()
	return taken, closing
}

// finish ends the capture once every line is written: the compressed
// stream's end, then the disk space reserved past it given back. It
// reports whether the stream's end was written.
func (w *Writer) finish() bool {
	if w.end != nil {
		if err := w.end(); err != nil {
			w.fail(fmt.Errorf("write capture: %w", err))
			return false
		}
	}
	if w.release != nil {
		// The disk space reserved ahead of the writes goes back: a file
		// closed keeps only what it holds.
		if err := w.release(); err != nil {
			w.fail(fmt.Errorf("write capture: free the space reserved past its end: %w", err))
		}
	}
	return true
}

// writeEach writes the slabs one call each, for a writer that takes no
// batch, accounts for the client end lines written and reports whether
// there was one, whether a write went through and whether one failed
// (the slabs after it are not written).
func (w *Writer) writeEach(slabs []*slab) (ended, wrote, failed bool) {
	for _, s := range slabs {
		if failed {
			continue
		}
		if len(s.b) == 0 {
			w.handOver(s.kept, 0) // marks of no line (ExchangeWriter.Whole)
			continue
		}
		n, err := w.write(s.b)
		if err != nil && w.flush != nil {
			n = 0 // the compressor may have taken bytes the disk did not
		}
		ended = w.written(s.ends, n) || ended
		w.handOver(s.kept, n)
		if err != nil {
			failed = w.fail(err)
		} else {
			wrote = true
		}
	}
	return ended, wrote, failed
}

// giveBack returns the slabs written (or dropped) to the pool, and their
// room in the queue to the producers waiting for it.
func (w *Writer) giveBack(slabs []*slab) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i, s := range slabs {
		w.queued -= len(s.b)
		w.dropQueued -= s.drop
		w.recycle(s)
		slabs[i] = nil
	}
	w.room.Broadcast()
}

// writeSlabs writes the slabs in one batch, accounts for the client end
// lines written and reports whether there was one, and whether the write
// failed.
func (w *Writer) writeSlabs(slabs []*slab, bufs *[][]byte) (ended, failed bool) {
	*bufs = (*bufs)[:0]
	for _, s := range slabs {
		if len(s.b) > 0 {
			*bufs = append(*bufs, s.b)
		}
	}
	n, err := w.batch.writeBatch(*bufs)
	w.wrote.Add(n)
	clear(*bufs)
	if err == nil && w.sync != nil {
		if err = w.sync.Sync(); err != nil {
			err = fmt.Errorf("sync capture: %w", err)
		}
	} else if err != nil {
		err = fmt.Errorf("write capture: %w", err)
	}
	for _, s := range slabs {
		k := min(n, int64(len(s.b)))
		n -= k
		ended = w.written(s.ends, int(k)) || ended
		w.handOver(s.kept, int(k))
	}
	if err != nil {
		return ended, w.fail(err)
	}
	return ended, false
}

// written accounts for the client end lines among the first n bytes of a
// slab written, and reports whether there was one.
func (w *Writer) written(ends []endMark, n int) bool {
	if len(ends) == 0 || ends[0].pos > n {
		return false
	}
	w.mu.Lock()
	for _, e := range ends {
		if e.pos > n {
			break
		}
		w.stats.Recorded++
		if e.lossy {
			w.stats.Incomplete++
		}
		if e.skipped {
			w.stats.Skipped++
		}
		delete(w.open, e.ex)
	}
	w.mu.Unlock()
	return true
}

// fail records the first write error and calls OnError. It returns true.
func (w *Writer) fail(err error) bool {
	w.mu.Lock()
	first := w.err == nil
	if first {
		w.err = err
	}
	inFlight := len(w.open)
	w.mu.Unlock()
	if first && w.opts.OnError != nil {
		w.opts.OnError(err, inFlight)
	}
	return true
}

// write writes one batch of complete lines and syncs it when asked to. It
// returns how many bytes of b were written.
func (w *Writer) write(b []byte) (int, error) {
	n, err := w.w.Write(b)
	if w.flush == nil {
		w.wrote.Add(int64(n))
	}
	if err != nil {
		return n, fmt.Errorf("write capture: %w", err)
	}
	if w.sync != nil {
		if w.flush != nil {
			if err := w.flush(); err != nil {
				return 0, fmt.Errorf("write capture: %w", err)
			}
		}
		if err := w.sync.Sync(); err != nil {
			return 0, fmt.Errorf("sync capture: %w", err)
		}
	}
	return n, nil
}
