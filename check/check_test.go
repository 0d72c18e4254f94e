package check

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/replay"
)

// TestFixturesPass: every fixture of the repository replays as recorded and
// finds what its golden says, as seam check fixtures/ does in CI; and under
// the faults that only re-cut chunks nothing changes.
func TestFixturesPass(t *testing.T) {
	paths, err := captures.Expand(context.Background(), []string{"../fixtures"}, captures.Options{})
	if err != nil {
		t.Fatal(err)
	}
	split, err := replay.ParseFault("split-rune")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{}, {Faults: []replay.Fault{split}, Seed: 1}} {
		var each int
		results, err := Run(context.Background(), paths, o, func(Result) { each++ })
		if err != nil {
			t.Fatal(err)
		}
		if len(results) != len(paths) || each != len(paths) {
			t.Fatalf("%d results, %d calls, for %d fixtures", len(results), each, len(paths))
		}
		for _, r := range results {
			if !r.OK {
				t.Errorf("%s (faults %v):\n%s", r.Path, o.Faults, strings.Join(r.Problems, "\n"))
			}
		}
	}
}

// TestGoldenUpdateAndDrift: Update writes the golden seam check --update
// wrote (byte for byte); a golden that expects another finding fails the
// fixture with a -/+ diff; a fixture without a golden says how to make one.
func TestGoldenUpdateAndDrift(t *testing.T) {
	const name = "incident-holdback-off"
	dir := t.TempDir()
	fixture := filepath.Join(dir, name+".ndjson")
	copyFile(t, filepath.Join("../fixtures", name+".ndjson"), fixture)
	want, err := os.ReadFile(filepath.Join("../fixtures", name+".expect.json"))
	if err != nil {
		t.Fatal(err)
	}
	if p := Fixture(context.Background(), fixture, Options{}); len(p) != 1 || !strings.Contains(p[0], "no golden "+name+".expect.json; create it with seam check --update") {
		t.Errorf("without a golden: %q", p)
	}
	if p := Fixture(context.Background(), fixture, Options{Update: true}); len(p) != 0 {
		t.Fatalf("update: %q", p)
	}
	got, err := os.ReadFile(GoldenPath(fixture))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the golden written differs from the repository's:\n%s\nwant\n%s", got, want)
	}
	drifted := bytes.Replace(want, []byte("xml.unclosed-closer"), []byte("xml.other"), 1)
	if err := os.WriteFile(GoldenPath(fixture), drifted, 0o644); err != nil {
		t.Fatal(err)
	}
	p := Fixture(context.Background(), fixture, Options{})
	if len(p) != 1 || !strings.Contains(p[0], "findings differ from the golden (- expected, + found):\n- error xml.other") {
		t.Errorf("drifted golden: %q", p)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if rs, err := Run(ctx, []string{fixture}, Options{}, nil); err == nil || len(rs) != 0 {
		t.Errorf("interrupted: %v results, error %v", rs, err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
