// Package completion writes shell completion scripts (bash, zsh, fish) for
// a command line made of subcommands and their flags, from a plain Spec:
// the subcommands, each flag's name, usage line and fixed values, and the
// help topics.
//
// It does not read flag sets, the environment or stdio: the command builds
// the Spec from the flags it registers, so completion never lags behind
// them, and says where the script goes.
package completion
