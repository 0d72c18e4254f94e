package inspect

import (
	"context"
	"errors"
	"testing"

	"github.com/seam-dev/seam/fixtures"
)

// TestInspectContextCancelled: InspectContext stops between exchanges once
// its context is done (seam report interrupted) and returns the context's
// error instead of a report.
func TestInspectContextCancelled(t *testing.T) {
	c, err := fixtures.Load("anthropic-tool-use.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r, err := InspectContext(ctx, c, Options{}); !errors.Is(err, context.Canceled) || r != nil {
		t.Fatalf("got %v, %v; want no report and %v", r, err, context.Canceled)
	}
	if r, err := InspectContext(context.Background(), c, Options{}); err != nil || len(r.Exchanges) != len(c.Exchanges) {
		t.Fatalf("not cancelled: %v; want a report of every exchange", err)
	}
}
