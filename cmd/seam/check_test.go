package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// ctrl-c stops seam check at once with the interrupted status (130), not
// with every fixture left reported as failing.
func TestCheckInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := runSeam(ctx, nil, &stdout, &stderr, "check", fixturesDir)
	if code != 130 || strings.Contains(stdout.String(), "FAIL") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 130 and no FAIL", code, stdout.String(), stderr.String())
	}
}
