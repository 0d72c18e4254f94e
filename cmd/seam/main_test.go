package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary act as the seam command: scripts and the
// subprocess tests run "seam" from PATH, which is this binary running main.
func TestMain(m *testing.M) {
	// No test writes seam's CA into the real user config directory: a
	// test that does not name a CA directory gets a throwaway one.
	if os.Getenv("SEAM_CA_DIR") == "" {
		os.Setenv("SEAM_CA_DIR", filepath.Join(os.TempDir(), fmt.Sprintf("seam-test-ca-%d", os.Getuid())))
	}
	// Under -race, a process sleeps a second as it exits (the race
	// runtime's atexit_sleep_ms), and the tests start seam as a process a
	// few hundred times: most of their wall time. The scripts and the
	// subprocesses inherit GORACE; races are still reported.
	if g := os.Getenv("GORACE"); !strings.Contains(g, "atexit_sleep_ms") {
		os.Setenv("GORACE", strings.TrimSpace(g+" atexit_sleep_ms=10"))
	}
	testscript.Main(m, map[string]func(){"seam": main})
}

// fixturesDir is the repository's fixtures directory, for scripts to read.
var fixturesDir, _ = filepath.Abs(filepath.Join("..", "..", "fixtures"))

// TestScripts runs the CLI scripts in testdata/script: help text, usage
// errors and exit codes, and the demo end to end.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(e *testscript.Env) error {
			e.Setenv("NO_COLOR", "1")
			e.Setenv("FIXTURES", fixturesDir)
			e.Setenv("SEAM_CA_DIR", filepath.Join(e.WorkDir, "seam-ca"))
			if home := os.Getenv("HOME"); home != "" {
				e.Setenv("HOME", home)
			}
			return nil
		},
		// [repo] holds in a git checkout of seam (fresh-clone lists its files).
		Condition: func(cond string) (bool, error) {
			if cond != "repo" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			return exec.Command("git", "-C", filepath.Join("..", ".."), "rev-parse", "--is-inside-work-tree").Run() == nil, nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// fresh-clone DIR copies the repository's tracked files to DIR.
			"fresh-clone": freshClone,
			// readme-walk README SCRIPT GOPATH writes SCRIPT, which runs
			// README's commands as a newcomer would.
			"readme-walk": readmeWalk,
			// replace OLD NEW FILE rewrites every OLD in FILE as NEW.
			"replace": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 3 {
					ts.Fatalf("usage: replace OLD NEW FILE")
				}
				file := ts.MkAbs(args[2])
				b, err := os.ReadFile(file)
				ts.Check(err)
				if !strings.Contains(string(b), args[0]) {
					ts.Fatalf("%s does not contain %q", args[2], args[0])
				}
				ts.Check(os.WriteFile(file, []byte(strings.ReplaceAll(string(b), args[0], args[1])), 0o644))
			},
			// zstd FILE compresses FILE into FILE.zst and removes FILE, as
			// the zstd command does with --rm.
			"zstd": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: zstd FILE")
				}
				file := ts.MkAbs(args[0])
				b, err := os.ReadFile(file)
				ts.Check(err)
				var out bytes.Buffer
				zw, err := zstd.NewWriter(&out)
				ts.Check(err)
				_, err = zw.Write(b)
				ts.Check(err)
				ts.Check(zw.Close())
				ts.Check(os.WriteFile(file+".zst", out.Bytes(), 0o644))
				ts.Check(os.Remove(file))
			},
		},
	})
}

// testEnv is the environment of a seam run in this process: stdin (empty
// when nil), stdout and stderr, and no environment variables.
func testEnv(stdin io.Reader, stdout, stderr io.Writer) *env {
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	return &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: func(string) string { return "" }}
}

// runSeam runs seam with args in this process, as the command line would
// (the error printed on stderr), and returns its exit status.
func runSeam(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, args ...string) int {
	return exitCode(run(ctx, args, testEnv(stdin, stdout, stderr)), stderr)
}

// seamOutput is exec.Command("seam", args...).Output() run in this
// process, a hundred times faster under -race: seam's stdout, and an error
// with its exit status and stderr when it fails.
func seamOutput(args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	if code := runSeam(context.Background(), nil, &stdout, &stderr, args...); code != 0 {
		return stdout.Bytes(), fmt.Errorf("seam %s: exit status %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	return stdout.Bytes(), nil
}

// seamCombinedOutput is seamOutput with stderr written to stdout, as
// exec.Cmd.CombinedOutput.
func seamCombinedOutput(args ...string) ([]byte, error) {
	var out bytes.Buffer
	if code := runSeam(context.Background(), nil, &out, &out, args...); code != 0 {
		return out.Bytes(), fmt.Errorf("seam %s: exit status %d", strings.Join(args, " "), code)
	}
	return out.Bytes(), nil
}
