package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"strconv"
	"strings"
	"testing"
)

// runTUICommand runs "seam tui args..." with buffers for stdio: stdout is
// not a terminal.
func runTUICommand(t *testing.T, args ...string) (string, error) {
	t.Helper()
	r := lookup("tui").new()
	fs := flag.NewFlagSet("seam tui", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	r.flags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err := r.run(context.Background(), testEnv(nil, &stdout, &stderr), fs)
	code := exitCode(err, &stderr)
	if stdout.Len() > 0 {
		t.Errorf("stdout got %q", stdout.String())
	}
	return strings.TrimSpace(stderr.String()) + " (exit " + strconv.Itoa(code) + ")", err
}

func TestTUICommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"stdout not a terminal", []string{"../../tui/testdata/incident.ndjson"}, []string{"stdout is not a terminal", "seam inspect ../../tui/testdata/incident.ndjson", "(exit 1)"}},
		{"hint quoted", []string{"my captures/a.ndjson", "b.ndjson"}, []string{"for a text report run: seam inspect 'my captures/a.ndjson' b.ndjson", "(exit 1)"}},
		{"no capture", nil, []string{"seam tui: no capture given", "try: seam tui captures/", "(exit 2)"}},
		{"stdin", []string{"-"}, []string{"cannot read a capture from stdin", "(exit 2)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := runTUICommand(t, tc.args...)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("stderr %q lacks %q", got, w)
				}
			}
		})
	}
}
