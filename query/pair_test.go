package query

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/seam-dev/seam/inspect"
)

func reports(exs ...int) func() (*inspect.ExchangeReport, error) {
	i := 0
	return func() (*inspect.ExchangeReport, error) {
		if i == len(exs) {
			return nil, nil
		}
		i++
		return &inspect.ExchangeReport{Ex: exs[i-1]}, nil
	}
}

// TestPairByNumber: exchanges pair by number whatever order each input
// numbers them in; a continuation (the same number again) pairs once;
// the numbers left over on either side are returned in order.
func TestPairByNumber(t *testing.T) {
	var pairs []string
	onlyA, onlyB, err := PairByNumber(context.Background(), reports(1, 3, 2, 2, 5), reports(2, 1, 3, 4), func(a, b *inspect.ExchangeReport) error {
		pairs = append(pairs, fmt.Sprintf("%d-%d", a.Ex, b.Ex))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"1-1", "2-2", "3-3"}; !slices.Equal(pairs, want) {
		t.Errorf("pairs %v, want %v", pairs, want)
	}
	if !slices.Equal(onlyA, []int{5}) || !slices.Equal(onlyB, []int{4}) {
		t.Errorf("only in A %v, only in B %v; want [5] and [4]", onlyA, onlyB)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := PairByNumber(ctx, reports(1), reports(1), func(a, b *inspect.ExchangeReport) error { return nil }); err == nil {
		t.Error("an ended context: no error")
	}
}

// TestDiffByNumber: each pair is diffed with its sides named input#N and
// handed over as found (reading both inputs side by side), kept only when asked; the inputs differ when an
// exchange has no counterpart.
func TestDiffByNumber(t *testing.T) {
	var seen []string
	d, err := DiffByNumber(context.Background(), "a.ndjson", "b.ndjson", reports(1, 2, 3), reports(2, 1), true, func(x *inspect.Diff) error {
		seen = append(seen, x.A+" "+x.B)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.ndjson#2 b.ndjson#2", "a.ndjson#1 b.ndjson#1"}; !slices.Equal(seen, want) || len(d.Pairs) != 2 || d.Pairs[1].A != "a.ndjson#1" {
		t.Errorf("diffs %v (%d kept), want %v", seen, len(d.Pairs), want)
	}
	if !slices.Equal(d.Compared, []int{2, 1}) || !slices.Equal(d.OnlyA, []int{3}) || d.Differ || !d.Differs() {
		t.Errorf("compared %v, only in A %v, a pair differs %v, differs %v", d.Compared, d.OnlyA, d.Differ, d.Differs())
	}
	d, err = DiffByNumber(context.Background(), "a", "b", reports(1), reports(1), false, nil)
	if err != nil || len(d.Pairs) != 0 || d.Pairs == nil || d.Differs() {
		t.Errorf("one equal pair, not kept: %+v, %v", d, err)
	}
}
