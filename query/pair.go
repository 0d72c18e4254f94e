package query

import (
	"context"
	"slices"
	"strconv"

	"github.com/seam-dev/seam/inspect"
)

// Diffs is what seam diff finds over every exchange pair of two inputs;
// its JSON is seam diff --json's document.
type Diffs struct {
	Pairs    []*inspect.Diff `json:"pairs"` // when DiffByNumber keeps them
	OnlyA    []int           `json:"only_a,omitempty"`
	OnlyB    []int           `json:"only_b,omitempty"`
	Compared []int           `json:"-"` // the exchanges paired, in the order found
	Differ   bool            `json:"-"` // some pair differs
}

// Differs reports whether the inputs differ: a pair does, or an exchange
// has no counterpart.
func (d *Diffs) Differs() bool { return d.Differ || len(d.OnlyA)+len(d.OnlyB) > 0 }

// DiffByNumber diffs each exchange of A with B's of the same number
// (PairByNumber), the sides named nameA#N and nameB#N, and calls each
// (when set) with every diff as its pair is found; keep holds them in
// Pairs too.
func DiffByNumber(ctx context.Context, nameA, nameB string, nextA, nextB func() (*inspect.ExchangeReport, error), keep bool, each func(*inspect.Diff) error) (*Diffs, error) {
	d := &Diffs{Pairs: []*inspect.Diff{}}
	var err error
	d.OnlyA, d.OnlyB, err = PairByNumber(ctx, nextA, nextB, func(x, y *inspect.ExchangeReport) error {
		diff := inspect.DiffExchangeReports(x, y)
		diff.A, diff.B = nameA+"#"+strconv.Itoa(x.Ex), nameB+"#"+strconv.Itoa(y.Ex)
		d.Differ = d.Differ || !diff.Equal
		d.Compared = append(d.Compared, x.Ex)
		if keep {
			d.Pairs = append(d.Pairs, diff)
		}
		if each != nil {
			return each(diff)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

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
