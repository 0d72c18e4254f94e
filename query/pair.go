package query

import (
	"context"
	"slices"

	"github.com/seam-dev/seam/inspect"
)

// PairByNumber pairs the exchange reports of two inputs, A and B, by
// exchange number, reading them side by side (nextA and nextB return the
// next report, nil at the end), and calls pair with each pair as it is
// found. Only the exchanges still waiting for their counterpart are held
// (none, when both inputs number theirs in the same order); a
// continuation of an exchange already paired is not paired again. It
// returns the numbers of the exchanges of A and of B left without a
// counterpart, in order, and stops at the first error a reader or pair
// returns, or when ctx ends.
func PairByNumber(ctx context.Context, nextA, nextB func() (*inspect.ExchangeReport, error), pair func(a, b *inspect.ExchangeReport) error) (onlyA, onlyB []int, err error) {
	p := &numberPairs{waitA: map[int]*inspect.ExchangeReport{}, waitB: map[int]*inspect.ExchangeReport{}, paired: map[int]bool{}, pair: pair}
	doneA, doneB := false, false
	for !doneA || !doneB {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if !doneA {
			r, err := nextA()
			if err != nil {
				return nil, nil, err
			}
			doneA = r == nil
			if err := p.take(r, true); err != nil {
				return nil, nil, err
			}
		}
		if !doneB {
			r, err := nextB()
			if err != nil {
				return nil, nil, err
			}
			doneB = r == nil
			if err := p.take(r, false); err != nil {
				return nil, nil, err
			}
		}
	}
	return sortedKeys(p.waitA), sortedKeys(p.waitB), nil
}

// numberPairs pairs the exchange reports of two inputs by number as they
// are read, each kept waiting until its counterpart comes.
type numberPairs struct {
	waitA, waitB map[int]*inspect.ExchangeReport
	paired       map[int]bool
	pair         func(a, b *inspect.ExchangeReport) error
}

// take files a report of side A (aSide) or B: paired with the other
// side's exchange of the same number when it was read, else kept waiting.
func (p *numberPairs) take(r *inspect.ExchangeReport, aSide bool) error {
	if r == nil || p.paired[r.Ex] {
		return nil
	}
	wait, other := p.waitA, p.waitB
	if !aSide {
		wait, other = other, wait
	}
	y, ok := other[r.Ex]
	if !ok {
		if _, dup := wait[r.Ex]; !dup {
			wait[r.Ex] = r
		}
		return nil
	}
	delete(other, r.Ex)
	p.paired[r.Ex] = true
	if aSide {
		return p.pair(r, y)
	}
	return p.pair(y, r)
}

func sortedKeys(m map[int]*inspect.ExchangeReport) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
