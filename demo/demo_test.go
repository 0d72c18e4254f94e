package demo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun: the demo records the embedded streams and the incident into
// the directory given, finds the incident's corruption and shows the
// replay with the fix switched on clearing it.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	hint := func(args ...string) string { return "seam " + strings.Join(args, " ") }
	if err := Run(context.Background(), &out, Options{Dir: dir, Seam: "test", Hint: hint}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{
		"decoded cleanly", "error xml.unclosed-closer", "replayed offline with obsidian-xml: no errors or warnings",
		"seam replay --set holdback=on " + filepath.Join(dir, "demo-incident.ndjson"),
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the demo does not say %q:\n%s", want, out.String())
		}
	}
	for _, name := range []string{"demo-streams.ndjson", "demo-incident.ndjson"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Contains(b, []byte(MockNote)) {
			t.Errorf("%s: %v, or no note saying its upstream was the demo's mock", name, err)
		}
	}
}

// TestRunExplainsEveryWarning: a count of warnings or errors in the
// demo's inspect summary is followed by what each is and whether the
// recorded stream itself carries it, so a newcomer does not read "2 warn"
// on a real Anthropic stream as seam flagging normal streams; and running
// the demo twice in its default directory replaces the first run's
// captures instead of leaving a new temporary directory behind.
func TestRunExplainsEveryWarning(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	for run := range 2 {
		var out bytes.Buffer
		if err := Run(context.Background(), &out, Options{Seam: "test", Hint: func(a ...string) string { return strings.Join(a, " ") }}); err != nil {
			t.Fatalf("run %d: %v\n%s", run+1, err, out.String())
		}
		lines := strings.Split(out.String(), "\n")
		explained := 0
		for i, line := range lines {
			if strings.HasPrefix(line, "  #") && !strings.HasSuffix(line, "no errors or warnings") {
				if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "     warn ") && !strings.HasPrefix(lines[i+1], "     error ") {
					t.Errorf("run %d: %q is not explained:\n%s", run+1, line, out.String())
				}
				explained++
			}
		}
		if explained == 0 || !strings.Contains(out.String(), "sse.unterminated-event (in the upstream's own bytes") {
			t.Errorf("run %d: the Anthropic stream's warning is not explained:\n%s", run+1, out.String())
		}
	}
}
