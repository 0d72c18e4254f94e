package main

import (
	"context"
	"flag"
	"fmt"
	"slices"

	"github.com/seam-dev/seam/internal/completion"
)

// completionOptions is seam completion's: it has no flags.
type completionOptions struct{}

func (completionOptions) flags(*flag.FlagSet) {}

func (completionOptions) run(_ context.Context, e *env, fs *flag.FlagSet) error {
	if fs.NArg() != 1 {
		return &usageError{cmd: "completion", msg: "name one shell: bash, zsh or fish", example: "seam completion bash"}
	}
	if !slices.Contains(completion.Shells, fs.Arg(0)) {
		return &usageError{cmd: "completion", msg: fmt.Sprintf("unknown shell %q: want bash, zsh or fish", fs.Arg(0)), example: "seam completion bash"}
	}
	return completion.Write(e.stdout, fs.Arg(0), completionSpec())
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
func completionSpec() completion.Spec {
	spec := completion.Spec{Program: "seam", Topics: []string{"switches", "where"}}
	for _, c := range commands() {
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		c.new().flags(fs)
		cc := completion.Command{Name: c.name, Summary: c.summary}
		fs.VisitAll(func(f *flag.Flag) {
			_, usage := flag.UnquoteUsage(f)
			cc.Flags = append(cc.Flags, completion.Flag{Name: f.Name, Usage: usage, Values: flagValues[f.Name]})
		})
		spec.Commands = append(spec.Commands, cc)
	}
	return spec
}
