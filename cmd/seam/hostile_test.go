package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/seam-dev/seam/visible/visibletest"
)

// TestHostileOutput runs every command that prints from a capture on one
// built to attack a terminal (OSC 52, CSI, bidi controls, NUL and C1 in
// every field, a hostile file name, a malformed line quoted in a warning):
// nothing a terminal would act on reaches stdout or stderr, whatever the
// exit status, JSON and HAR included.
func TestHostileOutput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "h\x1b]0;title\x07\u202e.ndjson")
	data := append(bytes.Clone(visibletest.Capture), "{\"type\":\"chunk\",\"ex\":1,\x1b[2J\u202e\n"...)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for i, args := range [][]string{
		{"inspect", path},
		{"inspect", "--color", "always", path},
		{"inspect", "--client", "vscode", path},
		{"inspect", "--json", path},
		{"diff", "--json", "--ex", "1", "--ex-b", "3", path, path},
		{"export", "--format", "har", path},
		{"inspect", "--ex", "9", path},
		{"replay", path},
		{"replay", "--profile", "obsidian-xml", path},
		{"check", dir},
		{"diff", "--ex", "1", "--ex-b", "3", path, path},
		{"export", "--format", "curl", "--ex", "1", path},
		{"export", "--format", "curl", "--ex", "2", path},
		{"export", "--format", "sse", "--ex", "9", path},
		{"import", "-o", filepath.Join(dir, "out\x1b[2J"), path + "\x1b[8m"},
	} {
		t.Run(fmt.Sprintf("%d-%s", i, args[0]), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runSeam(context.Background(), nil, &stdout, &stderr, args...)
			if err := visibletest.Check(stderr.String()); err != nil {
				t.Errorf("exit %d, stderr: %v", code, err)
			}
			if args[0] == "export" && code == 0 && args[2] != "har" {
				return // a body or a shell command, not text for a terminal
			}
			if err := visibletest.Check(stdout.String()); err != nil {
				t.Errorf("exit %d, stdout: %v", code, err)
			}
		})
	}
}
