package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The reusable action's script (.github/seam-check.sh), run here as CI
// runs it: it installs seam with go install, checks fixtures/ and leaves
// the JUnit file and the report; on a failing fixture it exits 1 and adds
// seam report's page of it.
func TestActionScript(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not on PATH")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: the script installs seam with go install")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	script := filepath.Join(root, ".github", "seam-check.sh")
	checkActionYAML(t, root)
	work := t.TempDir()
	run := func(env ...string) (string, int) {
		cmd := exec.Command("bash", script)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return string(out), cmd.ProcessState.ExitCode()
	}
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	bin := filepath.Join(work, "bin")
	gh := filepath.Join(work, "github-output")
	summary := filepath.Join(work, "summary.md")
	out, code := run("GOBIN="+bin, "SEAM_VERSION=", "SEAM_BIN=", "SEAM_FIXTURES="+fixturesDir,
		"SEAM_OUT=ok", "GITHUB_OUTPUT="+gh, "GITHUB_STEP_SUMMARY="+summary)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(bin, "seam")); err != nil {
		t.Fatalf("go install left no seam in GOBIN: %v\n%s", err, out)
	}
	junit := read(filepath.Join(work, "ok", "junit.xml"))
	if !regexp.MustCompile(`<testsuite name="seam check" tests="1\d" failures="0"`).MatchString(junit) {
		t.Errorf("junit.xml:\n%s", junit)
	}
	report := read(filepath.Join(work, "ok", "report.txt"))
	if !regexp.MustCompile(`(?m)^1\d passed, 0 failed$`).MatchString(report) || !strings.Contains(out, report) {
		t.Errorf("report.txt (printed too):\n%s\noutput:\n%s", report, out)
	}
	if g := read(gh); !strings.Contains(g, "junit=ok/junit.xml\n") || !strings.Contains(g, "report=ok/report.txt\n") {
		t.Errorf("step outputs:\n%s", g)
	}
	if s := read(summary); !strings.Contains(s, " passed, 0 failed") {
		t.Errorf("job summary:\n%s", s)
	}

	// A golden that expects another finding fails its fixture.
	fx := filepath.Join(work, "fixtures")
	if err := os.MkdirAll(fx, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"openai-chat-tools", "incident-holdback-off"} {
		for _, ext := range []string{".ndjson", ".expect.json"} {
			b := read(filepath.Join(fixturesDir, name+ext))
			if name == "openai-chat-tools" && ext == ".expect.json" {
				b = strings.Replace(b, `"findings": []`, `"findings": ["error diff.tool-call-dropped upstream event 13: get_stock_price"]`, 1)
			}
			if err := os.WriteFile(filepath.Join(fx, name+ext), []byte(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	out, code = run("SEAM_BIN="+filepath.Join(bin, "seam"), "SEAM_FIXTURES=fixtures", "SEAM_ARGS=--fault split-rune", "SEAM_OUT=failed",
		"GITHUB_OUTPUT=", "GITHUB_STEP_SUMMARY=")
	if code != 1 {
		t.Fatalf("exit %d with a failing fixture:\n%s", code, out)
	}
	if junit := read(filepath.Join(work, "failed", "junit.xml")); !strings.Contains(junit, `tests="2" failures="1"`) || !strings.Contains(junit, "diff.tool-call-dropped") {
		t.Errorf("junit.xml:\n%s", junit)
	}
	if report := read(filepath.Join(work, "failed", "report.txt")); !strings.Contains(report, "FAIL  fixtures/openai-chat-tools.ndjson") || !strings.Contains(report, "1 passed, 1 failed") {
		t.Errorf("report.txt:\n%s", report)
	}
	page, err := os.ReadFile(filepath.Join(work, "failed", "html", "openai-chat-tools.report.html"))
	if err != nil || !bytes.Contains(page, []byte("<html")) {
		t.Errorf("no HTML page of the failing fixture (%v):\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(work, "failed", "html", "incident-holdback-off.report.html")); err == nil {
		t.Error("an HTML page of a fixture that passed")
	}

	// A version that is not one is refused before anything is installed.
	if out, code = run("SEAM_BIN=", "SEAM_VERSION=--help", "SEAM_OUT=bad"); code != 2 || !strings.Contains(out, "not a module version") {
		t.Errorf("SEAM_VERSION=--help: exit %d:\n%s", code, out)
	}
}

// checkActionYAML checks that action.yml runs the script with the inputs
// it reads, and uploads the output directory even when the check fails.
func checkActionYAML(t *testing.T, root string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]struct {
			Default *string `yaml:"default"`
		} `yaml:"inputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				If   string            `yaml:"if"`
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				Env  map[string]string `yaml:"env"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(b, &action); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if action.Runs.Using != "composite" {
		t.Fatalf("action.yml runs using %q", action.Runs.Using)
	}
	script, err := os.ReadFile(filepath.Join(root, ".github", "seam-check.sh"))
	if err != nil {
		t.Fatal(err)
	}
	var ran, uploaded bool
	for _, s := range action.Runs.Steps {
		if strings.Contains(s.Run, "$GITHUB_ACTION_PATH/.github/seam-check.sh") {
			ran = true
			for k, v := range s.Env {
				in := regexp.MustCompile(`^\$\{\{ inputs\.([a-z-]+) \}\}$`).FindStringSubmatch(v)
				if in == nil || action.Inputs[in[1]].Default == nil {
					t.Errorf("step env %s=%s is not an input with a default", k, v)
				}
				if !bytes.Contains(script, []byte(k)) {
					t.Errorf("the script does not read %s", k)
				}
			}
		}
		if strings.HasPrefix(s.Uses, "actions/upload-artifact@") {
			uploaded = strings.HasPrefix(s.If, "always()") && s.With["path"] == "${{ inputs.output }}"
		}
	}
	if !ran || !uploaded {
		t.Errorf("action.yml: runs the script %v, uploads the output always %v", ran, uploaded)
	}
}
