package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/seam-dev/seam/internal/completion"
)

// TestCompletionBash: the bash script completes commands, each command's
// flags as its flag set registers them, fixed flag values, help topics,
// and file names; run in a real bash.
func TestCompletionBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on this machine")
	}
	script, err := seamOutput("completion", "bash")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "seam.bash")
	if err := os.WriteFile(path, script, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "capture.ndjson"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	complete := func(words ...string) string {
		t.Helper()
		line := "source " + path + "; COMP_WORDS=(" + strings.Join(words, " ") + "); COMP_CWORD=" + strconv.Itoa(len(words)-1) + `; _seam; echo "${COMPREPLY[*]}"`
		cmd := exec.Command(bash, "--norc", "-c", line)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{[]string{"seam", "rec"}, "record"},
		{[]string{"seam", "co"}, "completion"},
		{[]string{"seam", "record", "--lis"}, "--listen"},
		{[]string{"seam", "record", "-"}, "-o"},
		{[]string{"seam", "inspect", "--fail-on", "w"}, "warn"},
		{[]string{"seam", "serve", "--mode", "new"}, "new_episodes"},
		{[]string{"seam", "help", "wh"}, "where"},
		{[]string{"seam", "inspect", "cap"}, "capture.ndjson"},
		{[]string{"seam", "completion", "f"}, "fish"},
	} {
		if got := complete(tc.words...); !strings.Contains(" "+got+" ", " "+tc.want+" ") {
			t.Errorf("%q completes to %q, want %q among them", strings.Join(tc.words, " "), got, tc.want)
		}
	}
	// Every flag of every command is offered.
	for _, c := range completionSpec().Commands {
		got := " " + complete("seam", c.Name, "-") + " "
		for _, f := range c.Flags {
			if !strings.Contains(got, " "+completion.Dashed(f.Name)+" ") {
				t.Errorf("seam %s -<tab> lacks %s: %s", c.Name, completion.Dashed(f.Name), got)
			}
		}
	}
}

// TestCompletionShells: zsh's script loads bash's through bashcompinit;
// fish's names every command and flag; an unknown shell is a usage error.
func TestCompletionShells(t *testing.T) {
	zsh, err := seamOutput("completion", "zsh")
	if err != nil || !strings.HasPrefix(string(zsh), "#compdef seam") || !strings.Contains(string(zsh), "complete -o filenames -F _seam seam") {
		t.Errorf("zsh script: %v\n%.300s", err, zsh)
	}
	fish, err := seamOutput("completion", "fish")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range completionSpec().Commands {
		if !strings.Contains(string(fish), "-a "+c.Name+" -d ") {
			t.Errorf("fish script lacks command %s", c.Name)
		}
	}
	if !strings.Contains(string(fish), "__fish_seen_subcommand_from record' -l listen") || !strings.Contains(string(fish), "__fish_seen_subcommand_from record' -s o") {
		t.Errorf("fish script lacks record's flags")
	}
	if _, err := seamOutput("completion", "tcsh"); err == nil || !strings.Contains(err.Error(), "exit status 2") {
		t.Errorf("completion tcsh: %v", err)
	}
}
