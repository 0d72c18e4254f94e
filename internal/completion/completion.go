package completion

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Spec is what completion knows of a program: its name, its subcommands
// in the order they are offered, and the help topics "PROG help" takes
// besides the subcommands.
type Spec struct {
	Program  string
	Commands []Command
	Topics   []string
}

// Command is one subcommand: its name, the one line that describes it,
// and its flags.
type Command struct {
	Name, Summary string
	Flags         []Flag
}

// Flag is one flag: its name, usage line, and the values it takes when
// they are a fixed list.
type Flag struct {
	Name, Usage string
	Values      []string
}

// Shells are the shells a script can be written for.
var Shells = []string{"bash", "zsh", "fish"}

// Write writes the completion script of spec for shell, one of Shells.
func Write(w io.Writer, shell string, spec Spec) error {
	switch shell {
	case "bash":
		return WriteBash(w, spec)
	case "zsh":
		return WriteZsh(w, spec)
	case "fish":
		return WriteFish(w, spec)
	}
	return fmt.Errorf("unknown shell %q: want %s", shell, strings.Join(Shells, ", "))
}

func (s Spec) names() []string {
	var names []string
	for _, c := range s.Commands {
		names = append(names, c.Name)
	}
	return names
}

// helpWords are the words "PROG help" completes to: topics, then commands.
func (s Spec) helpWords() string {
	return strings.Join(append(append([]string{}, s.Topics...), s.names()...), " ")
}

// WriteZsh writes the zsh script: the bash one, through zsh's
// bashcompinit.
func WriteZsh(w io.Writer, spec Spec) error {
	if _, err := fmt.Fprintf(w, "#compdef %s\n# %s's zsh completion: the bash one, through zsh's bashcompinit.\nautoload -U +X bashcompinit && bashcompinit\n", spec.Program, spec.Program); err != nil {
		return err
	}
	return WriteBash(w, spec)
}

// WriteBash writes the bash script: subcommands, help topics, each
// subcommand's flags, fixed flag values, and file names elsewhere.
func WriteBash(w io.Writer, spec Spec) error {
	p := spec.Program
	var b strings.Builder
	b.WriteString(`# ` + p + `'s bash completion (` + p + ` completion bash).
_` + p + `() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local cmd=${COMP_WORDS[1]}
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "help ` + strings.Join(spec.names(), " ") + `" -- "$cur"))
		return
	fi
	case "$cmd" in
	help) COMPREPLY=($(compgen -W "` + spec.helpWords() + `" -- "$cur")); return ;;
	completion) COMPREPLY=($(compgen -W "` + strings.Join(Shells, " ") + `" -- "$cur")); return ;;
	esac
	case "$prev" in
`)
	values := map[string]string{}
	for _, c := range spec.Commands {
		for _, f := range c.Flags {
			if len(f.Values) > 0 {
				values[f.Name] = strings.Join(f.Values, " ")
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(values)) {
		fmt.Fprintf(&b, "\t--%s|-%s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", name, name, values[name])
	}
	b.WriteString("\tesac\n\tif [[ $cur == -* ]]; then\n\t\tcase \"$cmd\" in\n")
	for _, c := range spec.Commands {
		var fl []string
		for _, f := range c.Flags {
			fl = append(fl, Dashed(f.Name))
		}
		if len(fl) > 0 {
			fmt.Fprintf(&b, "\t\t%s) COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", c.Name, strings.Join(fl, " "))
		}
	}
	b.WriteString("\t\tesac\n\t\treturn\n\tfi\n\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n}\ncomplete -o filenames -F _" + p + " " + p + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteFish writes the fish script: subcommands with their summaries,
// each subcommand's flags with their usage lines and fixed values, and
// the help topics.
func WriteFish(w io.Writer, spec Spec) error {
	p := spec.Program
	var b strings.Builder
	fmt.Fprintf(&b, "# %s's fish completion (%s completion fish).\ncomplete -c %s -f -n __fish_use_subcommand -a help -d 'show help for a command or topic'\n", p, p, p)
	for _, c := range spec.Commands {
		fmt.Fprintf(&b, "complete -c %s -f -n __fish_use_subcommand -a %s -d %s\n", p, c.Name, fishQuote(c.Summary))
		for _, f := range c.Flags {
			opt := "-l"
			if len(f.Name) == 1 {
				opt = "-s"
			}
			line := fmt.Sprintf("complete -c %s -n '__fish_seen_subcommand_from %s' %s %s -d %s", p, c.Name, opt, f.Name, fishQuote(f.Usage))
			if len(f.Values) > 0 {
				line += " -x -a " + fishQuote(strings.Join(f.Values, " "))
			}
			b.WriteString(line + "\n")
		}
	}
	fmt.Fprintf(&b, "complete -c %s -f -n '__fish_seen_subcommand_from help' -a %s\n", p, fishQuote(spec.helpWords()))
	fmt.Fprintf(&b, "complete -c %s -f -n '__fish_seen_subcommand_from completion' -a %s\n", p, fishQuote(strings.Join(Shells, " ")))
	_, err := io.WriteString(w, b.String())
	return err
}

// Dashed is how a flag is typed: -o for a one-letter name, --listen for
// the others (Go's flag package takes either form for any name).
func Dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// fishQuote quotes s as one fish word.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
