package completion

import (
	"bytes"
	"strings"
	"testing"
)

var spec = Spec{
	Program: "prog",
	Topics:  []string{"where"},
	Commands: []Command{
		{Name: "serve", Summary: "serve what's recorded", Flags: []Flag{
			{Name: "mode", Usage: "`mode` to run in", Values: []string{"none", "all"}},
			{Name: "o", Usage: "output file"},
		}},
	},
}

// TestFishQuotesEveryWord: a summary or usage line with a quote or a
// backslash stays one fish word, and fixed values are offered.
func TestFishQuotesEveryWord(t *testing.T) {
	var b bytes.Buffer
	if err := WriteFish(&b, spec); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`complete -c prog -f -n __fish_use_subcommand -a serve -d 'serve what\'s recorded'`,
		`complete -c prog -n '__fish_seen_subcommand_from serve' -l mode -d '` + "`mode`" + ` to run in' -x -a 'none all'`,
		`complete -c prog -n '__fish_seen_subcommand_from serve' -s o -d 'output file'`,
		`complete -c prog -f -n '__fish_seen_subcommand_from help' -a 'where serve'`,
	} {
		if !strings.Contains(b.String(), want+"\n") {
			t.Errorf("fish script lacks\n%s\n%s", want, b.String())
		}
	}
}

// TestBashCompletesFlagsAndValues: each command's flags as typed, each
// fixed-valued flag's values, and zsh's script is bash's behind
// bashcompinit; an unknown shell is refused.
func TestBashCompletesFlagsAndValues(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "zsh", spec); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{
		"#compdef prog\n",
		"autoload -U +X bashcompinit && bashcompinit\n",
		"\t--mode|-mode) COMPREPLY=($(compgen -W \"none all\" -- \"$cur\")); return ;;\n",
		"\t\tserve) COMPREPLY=($(compgen -W \"--mode -o\" -- \"$cur\")) ;;\n",
		"complete -o filenames -F _prog prog\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("zsh script lacks %q\n%s", want, s)
		}
	}
	if err := Write(&b, "tcsh", spec); err == nil {
		t.Error("tcsh: no error")
	}
}
