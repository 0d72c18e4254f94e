package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// completionOptions is seam completion's: it has no flags.
type completionOptions struct{}

func (completionOptions) flags(*flag.FlagSet) {}

func completionCommand() *command {
	return &command{
		name:    "completion",
		summary: "print a shell completion script (bash, zsh or fish)",
		usage:   "seam completion bash|zsh|fish",
		help:    completionHelp,
		example: "seam completion bash",
		new:     func() runner { return completionOptions{} },
	}
}

// completionHelp is the text of "seam help completion".
const completionHelp = `
Prints a script that completes seam's commands, their flags, the values of
--format, --mode, --protocol, --color and --fail-on, the help topics, and
file names elsewhere. Load it for the current shell, or install it:

  bash:  source <(seam completion bash)
         seam completion bash > ~/.local/share/bash-completion/completions/seam
  zsh:   source <(seam completion zsh)       (in ~/.zshrc, after compinit)
  fish:  seam completion fish > ~/.config/fish/completions/seam.fish`

func (completionOptions) run(_ context.Context, e *env, fs *flag.FlagSet) error {
	if fs.NArg() != 1 {
		return &usageError{cmd: "completion", msg: "name one shell: bash, zsh or fish", example: "seam completion bash"}
	}
	spec := completionSpec()
	switch fs.Arg(0) {
	case "bash":
		return writeBash(e.stdout, spec)
	case "zsh":
		fmt.Fprint(e.stdout, "#compdef seam\n# seam's zsh completion: the bash one, through zsh's bashcompinit.\nautoload -U +X bashcompinit && bashcompinit\n")
		return writeBash(e.stdout, spec)
	case "fish":
		return writeFish(e.stdout, spec)
	}
	return &usageError{cmd: "completion", msg: fmt.Sprintf("unknown shell %q: want bash, zsh or fish", fs.Arg(0)), example: "seam completion bash"}
}

// compCommand is what completion knows of one command.
type compCommand struct {
	name, summary string
	flags         []compFlag
}

// compFlag is one flag: its name, usage line, and the values it takes
// when they are a fixed list.
type compFlag struct {
	name, usage string
	values      []string
}

// flagValues are the fixed values of flags that take one of a list.
var flagValues = map[string][]string{
	"format":   {"har", "govcr", "vcrpy", "sse", "curl", "otlp"},
	"mode":     {"none", "once", "new_episodes", "all", "passthrough"},
	"protocol": {"auto", "chat", "responses", "anthropic", "gemini", "converse", "invoke", "cohere", "ollama"},
	"color":    {"auto", "always", "never"},
	"fail-on":  {"error", "warn"},
}

// completionSpec reads every command's flags from the flag sets the
// commands register, so completion never lags behind them.
func completionSpec() []compCommand {
	var out []compCommand
	for _, c := range commands() {
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		c.new().flags(fs)
		cc := compCommand{name: c.name, summary: c.summary}
		fs.VisitAll(func(f *flag.Flag) {
			_, usage := flag.UnquoteUsage(f)
			cc.flags = append(cc.flags, compFlag{name: f.Name, usage: usage, values: flagValues[f.Name]})
		})
		out = append(out, cc)
	}
	return out
}

// helpTopics are what "seam help" explains besides the commands.
var helpTopics = []string{"switches", "where"}

func writeBash(w io.Writer, spec []compCommand) error {
	var names []string
	for _, c := range spec {
		names = append(names, c.name)
	}
	var b strings.Builder
	b.WriteString(`# seam's bash completion (seam completion bash).
_seam() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local cmd=${COMP_WORDS[1]}
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "help ` + strings.Join(names, " ") + `" -- "$cur"))
		return
	fi
	case "$cmd" in
	help) COMPREPLY=($(compgen -W "` + strings.Join(append(append([]string{}, helpTopics...), names...), " ") + `" -- "$cur")); return ;;
	completion) COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")); return ;;
	esac
	case "$prev" in
`)
	values := map[string]string{}
	for _, c := range spec {
		for _, f := range c.flags {
			if len(f.values) > 0 {
				values[f.name] = strings.Join(f.values, " ")
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(values)) {
		fmt.Fprintf(&b, "\t--%s|-%s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", name, name, values[name])
	}
	b.WriteString("\tesac\n\tif [[ $cur == -* ]]; then\n\t\tcase \"$cmd\" in\n")
	for _, c := range spec {
		var fl []string
		for _, f := range c.flags {
			fl = append(fl, dashed(f.name))
		}
		if len(fl) > 0 {
			fmt.Fprintf(&b, "\t\t%s) COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", c.name, strings.Join(fl, " "))
		}
	}
	b.WriteString("\t\tesac\n\t\treturn\n\tfi\n\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n}\ncomplete -o filenames -F _seam seam\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func writeFish(w io.Writer, spec []compCommand) error {
	var b strings.Builder
	b.WriteString("# seam's fish completion (seam completion fish).\ncomplete -c seam -f -n __fish_use_subcommand -a help -d 'show help for a command or topic'\n")
	for _, c := range spec {
		fmt.Fprintf(&b, "complete -c seam -f -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(c.summary))
		for _, f := range c.flags {
			opt := "-l"
			if len(f.name) == 1 {
				opt = "-s"
			}
			line := fmt.Sprintf("complete -c seam -n '__fish_seen_subcommand_from %s' %s %s -d %s", c.name, opt, f.name, fishQuote(f.usage))
			if len(f.values) > 0 {
				line += " -x -a " + fishQuote(strings.Join(f.values, " "))
			}
			b.WriteString(line + "\n")
		}
	}
	var names []string
	for _, c := range spec {
		names = append(names, c.name)
	}
	fmt.Fprintf(&b, "complete -c seam -f -n '__fish_seen_subcommand_from help' -a %s\n", fishQuote(strings.Join(append(append([]string{}, helpTopics...), names...), " ")))
	fmt.Fprintf(&b, "complete -c seam -f -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// dashed is how a flag is typed: -o for a one-letter name, --listen for
// the others (Go's flag package takes either form for any name).
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// fishQuote quotes s as one fish word.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
