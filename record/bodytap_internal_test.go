package record

import (
	"bytes"
	"io"
	"testing"
)

// TestBodyTapBudget: taps sharing a budget keep each body's first 64 KiB
// and at most the budget beyond that, all together; a tap that could not
// get more stops keeping (its copy stays a prefix), says it was cut for
// memory, and passes every byte on; releasing a tap's copy returns its
// bytes to the budget for the next body.
func TestBodyTapBudget(t *testing.T) {
	t.Parallel()
	const n, size, budget = 8, 2 << 20, 1 << 20
	held := &heldBytes{left: budget}
	body := func(i int) []byte { return bytes.Repeat([]byte{byte('a' + i)}, size) }
	taps := make([]*bodyTap, n)
	for i := range taps {
		taps[i] = newBodyTap(io.NopCloser(bytes.NewReader(body(i))), size, DefaultMaxRequestBody)
		taps[i].held = held
	}
	// Read the bodies in turns, 32 KiB at a time, as concurrent uploads go.
	passed := make([]int, n)
	buf := make([]byte, 32<<10)
	for active := n; active > 0; {
		active = 0
		for i, tp := range taps {
			k, err := tp.Read(buf)
			passed[i] += k
			if err == nil {
				active++
			}
		}
	}
	var beyond int
	for i, tp := range taps {
		kept, cut := tp.snapshot()
		starved, _ := tp.cutForMemory()
		if passed[i] != size || !bytes.HasPrefix(body(i), kept) {
			t.Errorf("tap %d passed %d bytes on, kept %d that are not a prefix", i, passed[i], len(kept))
		}
		if len(kept) < 64<<10 {
			t.Errorf("tap %d kept %d bytes, less than its free 64 KiB", i, len(kept))
		}
		if cut != (len(kept) < size) || starved != cut {
			t.Errorf("tap %d: kept %d, truncated %v, cut for memory %v", i, len(kept), cut, starved)
		}
		beyond += len(kept) - 64<<10
	}
	if beyond > budget || held.left != budget-int64(beyond) {
		t.Errorf("%d bytes kept beyond the free 64 KiB per body, budget %d, %d left", beyond, budget, held.left)
	}
	for _, tp := range taps {
		tp.release()
	}
	if held.left != budget {
		t.Errorf("after release %d of %d left", held.left, budget)
	}
	// With the budget back, the next body gets all of it.
	next := newBodyTap(io.NopCloser(bytes.NewReader(body(0))), size, DefaultMaxRequestBody)
	next.held = held
	if _, err := io.Copy(io.Discard, next); err != nil {
		t.Fatal(err)
	}
	if kept, _ := next.snapshot(); len(kept) != 64<<10+budget {
		t.Errorf("next body kept %d bytes, want its 64 KiB and the whole budget", len(kept))
	}
}
