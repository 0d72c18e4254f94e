package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestPager: on a terminal, a reading command's text goes through
// SEAM_PAGER (else PAGER, else less -FRX), which gets colour; "cat"
// turns paging off, and a pipe is never paged.
func TestPager(t *testing.T) {
	run1 := func(terminal bool, vars map[string]string, args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, terminal: terminal,
			getenv: func(k string) string { return vars[k] }}
		if code := exitCode(run(context.Background(), args, e), &errb); code != 0 {
			t.Fatalf("seam %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
		}
		return out.String()
	}
	fixture := "../../fixtures/incident-holdback-off.ndjson"
	paged := run1(true, map[string]string{"SEAM_PAGER": "sed 's/^/paged: /'", "PAGER": "false"}, "inspect", fixture)
	if !strings.HasPrefix(paged, "paged: ") || strings.Contains(paged, "\npaged: paged: ") {
		t.Errorf("SEAM_PAGER did not page inspect:\n%.300s", paged)
	}
	if !strings.Contains(paged, "\x1b[") {
		t.Errorf("no colour through the pager:\n%.300s", paged)
	}
	if got := run1(true, map[string]string{"PAGER": "sed 's/^/p: /'"}, "inspect", fixture); !strings.HasPrefix(got, "p: ") {
		t.Errorf("PAGER did not page inspect:\n%.200s", got)
	}
	for name, vars := range map[string]map[string]string{
		"SEAM_PAGER=cat": {"SEAM_PAGER": "cat", "PAGER": "sed 's/^/p: /'"},
	} {
		if got := run1(true, vars, "inspect", fixture); strings.HasPrefix(got, "p: ") {
			t.Errorf("%s paged:\n%.200s", name, got)
		}
	}
	if got := run1(false, map[string]string{"PAGER": "sed 's/^/p: /'"}, "inspect", fixture); strings.HasPrefix(got, "p: ") {
		t.Errorf("a pipe was paged:\n%.200s", got)
	}
	// A pager left before the end of the text (head reads ten bytes of
	// megabytes and exits) is no failure: exit 0, nothing said.
	if got := run1(true, map[string]string{"SEAM_PAGER": "head -c 10"}, "inspect", "--json", "../../fixtures"); len(got) != 10 {
		t.Errorf("head as the pager wrote %d bytes:\n%s", len(got), got)
	}
}
