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
