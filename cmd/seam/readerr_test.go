package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadErrorsChangeExitStatus: a capture or recording whose reading
// fails (here stdin failing after part of a capture, or at once) is an
// error naming the input and the cause, with a non-zero exit status, for
// every reading command; nothing read before the error passes for the
// whole.
func TestReadErrorsChangeExitStatus(t *testing.T) {
	t.Parallel()
	capture, err := os.ReadFile("../../fixtures/openai-responses-tool-then-text.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	half := capture[:len(capture)/2]
	for _, args := range [][]string{
		{"inspect", "-"},
		{"inspect", "--json", "-"},
		{"import", "-"},
		{"replay", "-"},
		{"export", "--format", "sse", "-"},
		{"export", "--format", "har", "-"},
		{"diff", "-", "../../fixtures/openai-responses-tool-then-text.ndjson"},
	} {
		for name, in := range map[string]io.Reader{
			"at once":   iotest.ErrReader(errors.New("device gone")),
			"mid-way":   io.MultiReader(bytes.NewReader(half), iotest.ErrReader(errors.New("device gone"))),
			"timed out": iotest.TimeoutReader(bytes.NewReader(capture)),
		} {
			var stdout, stderr bytes.Buffer
			code := runSeam(context.Background(), in, &stdout, &stderr, args...)
			want := "device gone"
			if name == "timed out" {
				want = "timeout"
			}
			if code == 0 || !strings.Contains(stderr.String(), want) || !strings.Contains(stderr.String(), "-") {
				t.Errorf("seam %s (stdin fails %s): exit %d, stderr %q", strings.Join(args, " "), name, code, stderr.String())
			}
		}
	}
}

// TestTornCaptureWarns: a capture whose last line is torn (a recording
// killed mid-write) is read up to it, with a warning on stderr, by every
// command that reads captures, seam import too.
func TestTornCaptureWarns(t *testing.T) {
	t.Parallel()
	capture, err := os.ReadFile("../../fixtures/openai-chat-tools.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	torn := append(capture, `{"type":"note","ex":1,"t":1,"te`...)
	for _, args := range [][]string{
		{"import", "-"},
		{"inspect", "-"},
		{"replay", "-"},
		{"export", "--format", "har", "-"},
		{"export", "--format", "sse", "-"},
		{"report", "-o", "-", "-"},
	} {
		var stdout, stderr bytes.Buffer
		code := runSeam(context.Background(), bytes.NewReader(torn), &stdout, &stderr, args...)
		if code != 0 || !strings.Contains(stderr.String(), "warning: ") || stdout.Len() == 0 {
			t.Errorf("seam %s: exit %d, stderr %q", strings.Join(args, " "), code, stderr.String())
		}
	}
}
