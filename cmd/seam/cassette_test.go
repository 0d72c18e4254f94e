package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/convert"
	"github.com/seam-dev/seam/tape"
)

// cassetteFixtures returns every recording below fixtures/ that gives a
// cassette, loaded, with the exchanges the cassette holds.
func cassetteFixtures(t *testing.T) map[string]*tape.Capture {
	t.Helper()
	out := map[string]*tape.Capture{}
	err := filepath.WalkDir(fixturesDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "export" || d.Name() == "gen") {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() || strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".md") {
			return nil
		}
		c, err := captures.Load(context.Background(), p, captures.Options{})
		if err == nil && len(cassetteExchanges(c)) > 0 {
			out[p] = c
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// cassetteExchanges returns the exchanges a cassette holds and the side
// each replays (the client's, else the upstream's).
func cassetteExchanges(c *tape.Capture) []*tape.SideData {
	var out []*tape.SideData
	for _, x := range c.Exchanges {
		s := &x.Client
		if s.Response == nil {
			s = &x.Upstream
		}
		if x.Request != nil && s.Response != nil && s.Response.Status != http.StatusSwitchingProtocols {
			out = append(out, s)
		}
	}
	return out
}

// seam export --format govcr|vcrpy writes what package tape's writers
// write, for every recording in fixtures/, and leaves no secret in it.
func TestExportCassettes(t *testing.T) {
	fx := cassetteFixtures(t)
	if len(fx) < 40 {
		t.Fatalf("only %d recordings in fixtures give a cassette", len(fx))
	}
	for path, c := range fx {
		for format, write := range map[string]func(*bytes.Buffer) error{
			"govcr": func(b *bytes.Buffer) error {
				return convert.WriteGoVCR(b, []*tape.Capture{c}, convert.CassetteOptions{})
			},
			"vcrpy": func(b *bytes.Buffer) error {
				return convert.WriteVCRpy(b, []*tape.Capture{c}, convert.CassetteOptions{})
			},
		} {
			got, err := seamOutput("export", "--format", format, path)
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := write(&want); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Errorf("%s --format %s: seam export differs from package tape's writer", path, format)
			}
			// The go-vcr and VCR.py cassettes of fixtures/import were
			// recorded with this Authorization header.
			if bytes.Contains(got, []byte("fixture-secret-not-a-key")) || bytes.Contains(got, []byte("Bearer")) {
				t.Errorf("%s --format %s: the cassette holds the request's credentials", path, format)
			}
		}
	}
	// Several captures, or a directory, make one cassette.
	out, err := seamOutput("export", "--format", "govcr", "--where", "protocol=openai-chat", fixturesDir)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(out, []byte("\n  - id: ")); n < 2 || !bytes.Contains(out, []byte(`"https://api.openai.com/v1/chat/completions"`)) || bytes.Contains(out, []byte("/v1/messages")) {
		t.Errorf("a directory filtered to Chat Completions exchanges gave %d interactions", n)
	}
}

// vcrpyPython returns a Python that imports VCR.py, or "".
func vcrpyPython() string {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import vcr").Run() == nil {
			return py
		}
	}
	return ""
}

// VCR.py loads seam's cassette of every recording in fixtures/ and
// replays, to a client sending each recorded request, the capture's
// client side byte for byte (fixtures/export/vcrpy_replay.py).
func TestVCRpyReplaysSeamCassettes(t *testing.T) {
	py := vcrpyPython()
	if py == "" {
		t.Skip("VCR.py is not installed (import vcr fails in python3 and /usr/bin/python3; Debian: apt-get install python3-vcr): seam's VCR.py cassettes are not replayed")
	}
	dir := t.TempDir()
	type want struct {
		Status int    `json:"status"`
		Body   string `json:"body"`
	}
	type entry struct {
		Name         string `json:"name"`
		Cassette     string `json:"cassette"`
		Interactions []want `json:"interactions"`
	}
	var manifest []entry
	families := map[string]bool{}
	for path, c := range cassetteFixtures(t) {
		rel, _ := filepath.Rel(fixturesDir, path)
		families[filepath.Dir(rel)] = true
		out, err := seamOutput("export", "--format", "vcrpy", path)
		if err != nil {
			t.Fatal(err)
		}
		n := len(manifest)
		e := entry{Name: rel, Cassette: filepath.Join(dir, fmt.Sprintf("%d.yaml", n))}
		if err := os.WriteFile(e.Cassette, out, 0o644); err != nil {
			t.Fatal(err)
		}
		for i, s := range cassetteExchanges(c) {
			w := want{Status: s.Response.Status, Body: filepath.Join(dir, fmt.Sprintf("%d.%d.body", n, i))}
			if err := os.WriteFile(w.Body, s.Body(), 0o644); err != nil {
				t.Fatal(err)
			}
			e.Interactions = append(e.Interactions, w)
		}
		manifest = append(manifest, e)
	}
	for _, f := range []string{".", "import", "providers/bedrock", "providers/gemini", "providers/ollama", "realworld", "round3"} {
		if !families[f] {
			t.Errorf("fixtures/%s gave no cassette", f)
		}
	}
	mf := filepath.Join(dir, "manifest.json")
	b, err := json.Marshal(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mf, b, 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(fixturesDir, "export", "vcrpy_replay.py")
	out, err := exec.Command(py, script, mf).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", py, script, err, out)
	}
	if !bytes.Contains(out, []byte(fmt.Sprintf("%d passed, 0 failed", len(manifest)))) {
		t.Fatalf("VCR.py replay said:\n%s", out)
	}
}
