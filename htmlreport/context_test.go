package htmlreport

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/seam-dev/seam/inspect"
)

// TestWriteContextCancelled: a page of many exchanges takes seconds to
// build and render; once its context is done (seam report interrupted),
// WriteContext stops with the context's error, during the build or the
// rendering, and writes no page.
func TestWriteContextCancelled(t *testing.T) {
	c := loadFixture(t, "anthropic-tool-use.ndjson")
	rep := inspect.Inspect(c, inspect.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var b bytes.Buffer
	if err := WriteContext(ctx, &b, c, rep, testOptions); !errors.Is(err, context.Canceled) || b.Len() != 0 {
		t.Fatalf("cancelled before the build: %v and %d bytes; want %v and none", err, b.Len(), context.Canceled)
	}
	// Cancelled while the page is written: the writes after it fail.
	ctx, cancel = context.WithCancel(context.Background())
	w := &cancelAfter{n: 1, cancel: cancel}
	if err := WriteContext(ctx, w, c, rep, testOptions); !errors.Is(err, context.Canceled) || w.writes != 1 {
		t.Fatalf("cancelled after the first write: %v after %d writes; want %v after 1", err, w.writes, context.Canceled)
	}
}

// cancelAfter calls cancel once n writes are done.
type cancelAfter struct {
	n, writes int
	cancel    context.CancelFunc
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	c.writes++
	if c.writes == c.n {
		c.cancel()
	}
	return len(p), nil
}
