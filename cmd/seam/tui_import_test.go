package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/internal/shellquote"
	"github.com/seam-dev/seam/tape"
)

// TestTUIImportsRecordings: seam tui opens what inspect and report open: a
// raw body, a cassette, a HAR become a capture in a private temporary
// directory, shown under the recording's name; a capture is opened in
// place; a file that is neither is refused with why.
func TestTUIImportsRecordings(t *testing.T) {
	e := testEnv(nil, nil, nil)
	raw := filepath.Join(fixturesDir, "realworld", "anthropic-sdk-basic-response.sse")
	capture := filepath.Join(fixturesDir, "anthropic-tool-use.ndjson")
	paths, names, cleanup, err := tuiInputs(context.Background(), e, []string{capture, raw, fixturesDir})
	if err != nil {
		t.Fatal(err)
	}
	if paths[0] != capture || paths[2] != fixturesDir {
		t.Errorf("a capture and a directory were not left in place: %q", paths)
	}
	if names[paths[1]] != raw+" (imported)" {
		t.Errorf("the imported capture is shown as %q", names[paths[1]])
	}
	c, err := tape.ReadFile(paths[1])
	if err != nil || len(c.Exchanges) != 1 {
		t.Fatalf("the imported capture: %v, %+v", err, c)
	}
	if st, err := os.Stat(paths[1]); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the imported capture's mode: %v %v", st.Mode(), err)
	}
	cleanup()
	if _, err := os.Stat(filepath.Dir(paths[1])); !os.IsNotExist(err) {
		t.Errorf("the temporary directory outlived the TUI: %v", err)
	}
	garbage := filepath.Join(t.TempDir(), "x.json")
	os.WriteFile(garbage, []byte("{}\n"), 0o600)
	_, _, cleanup, err = tuiInputs(context.Background(), e, []string{garbage})
	cleanup()
	if err == nil || !strings.Contains(err.Error(), "no provider payload") {
		t.Errorf("a file that is no recording: %v", err)
	}
}

// TestTUIRawBodyInTmux: "seam tui raw.sse" in a real terminal (tmux) shows
// the body's exchange under the body's name (it printed a JSON parser
// error and exited).
func TestTUIRawBodyInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux on this machine")
	}
	seam, err := exec.LookPath("seam")
	if err != nil {
		t.Skip("seam is not built for this test binary")
	}
	raw, _ := filepath.Abs(filepath.Join(fixturesDir, "realworld", "anthropic-sdk-basic-response.sse"))
	session := "seamtui" + strings.ReplaceAll(t.Name(), "/", "")
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	tmux := func(args ...string) string {
		out, _ := exec.Command("tmux", append([]string{"-S", sock}, args...)...).CombinedOutput()
		return string(out)
	}
	tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "20", seam+" tui "+shellquote.Word(raw))
	defer tmux("kill-server")
	var screen string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		screen = tmux("capture-pane", "-p", "-t", session)
		if strings.Contains(screen, "claude-3-opus-latest") {
			break
		}
	}
	if !strings.Contains(screen, "anthropic-sdk-basic-response.sse (imported)") || !strings.Contains(screen, "claude-3-opus-latest") {
		t.Errorf("seam tui on a raw body shows:\n%s", screen)
	}
}
