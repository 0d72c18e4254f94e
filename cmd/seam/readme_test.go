package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/seam-dev/seam/internal/shellquote"
)

// readmeSkips are the commands of README.md's sh blocks that the newcomer
// walk (testdata/script/newcomer.txtar) does not run, by prefix, and why.
// Every entry must match a command, so the list follows the README.
var readmeSkips = []struct{ prefix, why string }{
	{"go test ./...", "runs the whole test suite, this walk included (CI runs it)"},
	{"seam record ", "records until ctrl-c, from a real API (the network and an API key) or around a proxy of your own"},
	{"HTTPS_PROXY=", "runs a client of your own (node agent.js)"},
	{"seam tui ", "needs a terminal (the TUI's screens and keys have teatest tests)"},
	{"go run ./cmd/seam-bench", "is a benchmark: minutes of load on every core"},
	{"seam export --format otlp ", "sends to an OpenTelemetry Collector (TestOTLPFamilies and e2e/otelcol run it against one)"},
}

// readmeCommands returns the command lines of the ```sh blocks of a README,
// in order: every line but blank ones and comments (the example output
// some blocks show).
func readmeCommands(readme []byte) []string {
	var out []string
	in := false
	sc := bufio.NewScanner(bytes.NewReader(readme))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```"):
			in = !in && strings.TrimPrefix(line, "```") == "sh"
		case in && strings.TrimSpace(line) != "" && !strings.HasPrefix(strings.TrimSpace(line), "#"):
			out = append(out, line)
		}
	}
	return out
}

// readmeWalk writes a shell script that runs every command of the README
// at readme not in readmeSkips, in order and as written, in one shell (an
// export or a cd carries over), stopping at the first that fails with its
// number, exit status and text. The Go toolchain reads the module cache
// and build cache of this test's environment, offline, with a GOPATH of
// its own under gopath, so the README's go install puts seam in
// gopath/bin and its export puts that on PATH: seam is never this test
// binary. It prints what it runs and what it skips, and why.
func readmeWalk(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: readme-walk README SCRIPT GOPATH")
	}
	readme, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	env := map[string]string{}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOFLAGS", "CGO_ENABLED", "GOROOT"} {
		out, err := exec.Command("go", "env", k).Output()
		ts.Check(err)
		env[k] = strings.TrimSpace(string(out))
	}
	// -trimpath keeps the clone's directory out of the build, so a later
	// walk finds its packages in the build cache.
	env["GOFLAGS"] = strings.TrimSpace(env["GOFLAGS"] + " -trimpath")
	gopath := ts.MkAbs(args[2])
	var b strings.Builder
	fmt.Fprintf(&b, "# The commands of %s's sh blocks, in order, as written (made by readme-walk).\n", args[0])
	// PATH without this test's seam; GOPATH/bin, where go install puts
	// seam, joins it by the README's own export.
	path := []string{filepath.Join(env["GOROOT"], "bin")}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "seam")); err != nil {
			path = append(path, dir) // not this test binary's directory, nor any with a seam
		}
	}
	fmt.Fprintf(&b, "export PATH=%s\n", shellquote.Word(strings.Join(path, string(os.PathListSeparator))))
	fmt.Fprintf(&b, "export GOPATH=%s GOCACHE=%s GOMODCACHE=%s GOFLAGS=%s CGO_ENABLED=%s GOPROXY=off GOSUMDB=off GOTOOLCHAIN=local\nunset GOBIN\n",
		shellquote.Word(gopath), shellquote.Word(env["GOCACHE"]), shellquote.Word(env["GOMODCACHE"]), shellquote.Word(env["GOFLAGS"]), shellquote.Word(env["CGO_ENABLED"]))
	b.WriteString("walk_fail() { printf 'README command %s failed (exit %s): %s\\n' \"$1\" \"$2\" \"$3\" >&2; exit 1; }\n")
	used := make([]bool, len(readmeSkips))
	ran, seamChecked := 0, false
next:
	for i, c := range readmeCommands(readme) {
		n := i + 1
		for k, s := range readmeSkips {
			if strings.HasPrefix(c, s.prefix) {
				used[k] = true
				fmt.Fprintf(ts.Stdout(), "skip %d: %s\n  because it %s\n", n, c, s.why)
				fmt.Fprintf(&b, "# %d skipped: %s\n", n, c)
				continue next
			}
		}
		if strings.HasPrefix(c, "seam ") && !seamChecked {
			// The seam the README installed answers, nothing else.
			seamChecked = true
			fmt.Fprintf(&b, "[ \"$(command -v seam)\" = %s ] || walk_fail %d 0 \"seam on PATH is $(command -v seam), not the one go install built\"\n",
				shellquote.Word(filepath.Join(gopath, "bin", "seam")), n)
		}
		ran++
		fmt.Fprintf(ts.Stdout(), "run %d: %s\n", n, c)
		fmt.Fprintf(&b, "printf '%%s\\n' %s\n%s\nwalk_status=$?; [ $walk_status -eq 0 ] || walk_fail %d $walk_status %s\n",
			shellquote.Word("$ "+c), c, n, shellquote.Word(c))
	}
	for k, u := range used {
		if !u {
			ts.Fatalf("readmeSkips has %q, which no command of %s starts with: remove it", readmeSkips[k].prefix, args[0])
		}
	}
	if ran < 8 || !seamChecked {
		ts.Fatalf("only %d commands of %s run (seam among them: %v): did its sh blocks move?", ran, args[0], seamChecked)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(b.String()), 0o644))
}

// freshClone copies the files git tracks in this repository, as they are
// in the working tree, to a directory: a fresh clone, with nothing beside
// it (no ../shared).
func freshClone(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fresh-clone DIR")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	ts.Check(err)
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		ts.Fatalf("list the repository's files: %v", err)
	}
	dst := ts.MkAbs(args[0])
	for _, name := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, name)
		st, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		ts.Check(err)
		if !st.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(src)
		ts.Check(err)
		to := filepath.Join(dst, name)
		ts.Check(os.MkdirAll(filepath.Dir(to), 0o755))
		ts.Check(os.WriteFile(to, data, st.Mode().Perm()))
	}
}
