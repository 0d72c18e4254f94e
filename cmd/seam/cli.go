package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/charmbracelet/x/term"
	"github.com/seam-dev/seam/bucket"
	"github.com/seam-dev/seam/internal/cli"
	"github.com/seam-dev/seam/internal/shellquote"
	"github.com/seam-dev/seam/listen"
	"github.com/seam-dev/seam/query"
	"github.com/seam-dev/seam/textreport"
	"github.com/seam-dev/seam/tui"
	"github.com/seam-dev/seam/visible"
)

// env is everything a command may touch outside the process: stdio and the
// environment. Tests pass buffers.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// terminal says stdout is a terminal, where long text is paged.
	terminal bool
	// paging says stdout is a pager's input; pageWidth is then the width
	// of the terminal the pager shows it on.
	paging    bool
	pageWidth int
	// self is the command line that runs this seam, for hints a user can
	// paste: "seam" when it is on PATH, "go run ./cmd/seam" under go run,
	// else the executable's path.
	self string
	// store reads s3:// inputs, set up on first use (see bucketStore).
	store *bucket.Store
}

// hint returns a command line running seam with args, each quoted for a
// POSIX shell.
func (e *env) hint(args ...string) string {
	self := e.self
	if self == "" {
		self = "seam"
	}
	for _, a := range args {
		self += " " + shellquote.Word(a)
	}
	return self
}

// command is one seam subcommand.
type command struct {
	name    string
	summary string // one line for "seam help"
	usage   string // synopsis, e.g. "seam record --upstream URL [flags]"
	example string // the "try:" hint printed with usage errors
	// new returns the command's options, empty, for its flags to fill.
	new func() runner
}

// runner is a command's options (a struct per command, inspectOptions
// for seam inspect) and what the command does with them.
type runner interface {
	// flags registers the command's flags on fs, filling the options.
	flags(fs *flag.FlagSet)
	// run carries out the command, fs holding the arguments left after
	// the flags.
	run(ctx context.Context, e *env, fs *flag.FlagSet) error
}

// commands lists every subcommand, in the order "seam help" shows them;
// each one's help is help/NAME.txt.
func commands() []*command {
	return []*command{
		{name: "demo", summary: "record embedded real streams through the proxy, offline, and summarise them",
			usage:   "seam demo [--speed N] [-o DIR]",
			example: "seam demo --speed 4",
			new:     func() runner { return &demoOptions{} }},
		{name: "record", summary: "run the recording proxy: point a client's base URL at it",
			usage:   "seam record --upstream URL | --forward [--listen ADDR] [-o FILE|DIR] [flags]",
			example: "seam record --upstream https://api.openai.com -o captures/",
			new:     func() runner { return &recordOptions{} }},
		{name: "inspect", summary: "assemble each side, diff streamed vs final and upstream vs client, find corruption",
			usage:   "seam inspect [flags] CAPTURE|RAW|-|DIR...",
			example: "seam inspect --fail-on error captures/seam-20261122T093428Z.ndjson",
			new:     func() runner { return &inspectOptions{} }},
		{name: "stats", summary: "figures across captures: outcomes, TTFB and gap percentiles, stalls, tokens, findings",
			usage:   "seam stats [--by KEYS] [--stall D] [--where FILTER] [--json] DIR|CAPTURE...",
			example: "seam stats --by model captures/",
			new:     func() runner { return &statsOptions{} }},
		{name: "grep", summary: "search captures: assembled text, tool calls, request messages, headers",
			usage:   "seam grep [-i] [-F] [--in SCOPES] [--where FILTER] [-l] [--json] PATTERN DIR|CAPTURE...",
			example: "seam grep -i 'use_tool<' captures/",
			new:     func() runner { return &grepOptions{} }},
		{name: "diff", summary: "diff the assembled output of two exchanges or captures",
			usage:   "seam diff [--ex N] [--ex-b M] A B",
			example: "seam diff before.ndjson after.ndjson\n  seam diff --ex 3 --ex-b 4 capture.ndjson capture.ndjson",
			new:     func() runner { return &diffOptions{} }},
		{name: "replay", summary: "feed a capture's upstream side through the shaping engine again and compare",
			usage:   "seam replay [--profile P] [--set switch=value] [--ex N] [-o FILE] CAPTURE|RAW",
			example: "seam replay --set holdback=on fixtures/incident-holdback-off.ndjson",
			new:     func() runner { return &replayOptions{} }},
		{name: "check", summary: "CI regression: replay fixtures, compare chunk by chunk and findings with goldens",
			usage:   "seam check [--update] [--json] [--junit FILE] [--fault F]... DIR|CAPTURE...",
			example: "seam check fixtures/",
			new:     func() runner { return &checkOptions{} }},
		{name: "report", summary: "one HTML page to attach to a bug: verdict, findings, diffs, timing chart",
			usage:   "seam report [--ex N] [-o FILE|DIR|-] CAPTURE|RAW",
			example: "seam report fixtures/incident-holdback-off.ndjson",
			new:     func() runner { return &reportOptions{} }},
		{name: "import", summary: "turn another tool's recording (a body, JSONL, HAR, VCR cassette, httprr, nock, snapshot JSON) into a capture",
			usage:   "seam import [-o FILE|DIR|-] [--url PATH [--method M] [--request FILE]] RAW",
			example: "seam import -o captures/ tests/cassettes/stream.yaml",
			new:     func() runner { return &importOptions{} }},
		{name: "export", summary: "write captures out: HAR, go-vcr or VCR.py cassettes, a raw body, curl, OTLP spans",
			usage:   "seam export --format har|govcr|vcrpy|sse|curl|otlp [--ex N|CAPTURE#N] [--where FILTER] [--side upstream|client] CAPTURE|DIR...",
			example: "seam export --format curl --ex 2 capture.ndjson",
			new:     func() runner { return &exportOptions{} }},
		{name: "serve", summary: "serve captures as a mock upstream, at recorded timing",
			usage:   "seam serve [--mode M] [--upstream URL] [-o FILE|DIR] [--listen ADDR] [--speed N] [--fault F]... [CAPTURE|DIR...]",
			example: "seam serve --speed 0 captures/",
			new:     func() runner { return &serveOptions{} }},
		{name: "tui", summary: "browse captures in a terminal UI: diffs, timeline, findings, engine switches",
			usage:   "seam tui [--follow] CAPTURE|DIR...",
			example: "seam tui captures/",
			new:     func() runner { return &tuiOptions{} }},
		{name: "ca", summary: "show seam's CA for --forward and how to make clients trust it",
			usage:   "seam ca [--path | --pem | --rotate] [--ca-dir DIR]",
			example: "seam ca",
			new:     func() runner { return &caOptions{} }},
		{name: "completion", summary: "print a shell completion script (bash, zsh or fish)",
			usage:   "seam completion bash|zsh|fish",
			example: "seam completion bash",
			new:     func() runner { return completionOptions{} }},
		{name: "version", summary: "print seam's version and the capture format it writes",
			usage:   "seam version",
			example: "seam version",
			new:     func() runner { return versionOptions{} }},
	}
}

func lookup(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

// usageError is a mistake in how seam was called: exit status 2.
type usageError struct {
	cmd     string // "" for seam itself
	msg     string
	example string
}

func (e *usageError) Error() string {
	prefix := "seam"
	if e.cmd != "" {
		prefix += " " + e.cmd
	}
	s := prefix + ": " + e.msg
	if e.example != "" {
		s += "\ntry: " + e.example
	}
	return s
}

// errInterrupted reports that the user pressed ctrl-c: exit status 130.
var errInterrupted = errors.New("interrupted")

// exitCode maps the result of run to the process exit status, printing the
// error to stderr.
func exitCode(err error, stderr io.Writer) int {
	var ue *usageError
	var pe *fs.PathError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &pe) && errors.Is(pe.Err, syscall.EPIPE):
		// A pipe seam wrote into lost its reader (seam inspect … | head,
		// -o on a named pipe): nothing to say, and no one to say it to.
		// 141 is what a shell shows for a process ended by SIGPIPE, which
		// is how the Go runtime ends seam when that pipe is stdout.
		return 141
	case errors.Is(err, errInterrupted), errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "seam: interrupted")
		return 130
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, visible.Text(ue.Error()))
		return 2
	default:
		// Errors quote what they failed on: a capture, a stream, a file name.
		fmt.Fprintln(stderr, "seam: "+visible.Text(err.Error()))
		if hint := listen.InUseHint(err); hint != "" {
			fmt.Fprintln(stderr, "try: "+hint)
		}
		return 1
	}
}

// run dispatches args to a subcommand.
func run(ctx context.Context, args []string, e *env) error {
	if len(args) == 0 {
		printUsage(e.stderr)
		return &usageError{msg: "no command given", example: "seam demo"}
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 && rest[0] == "switches" {
			textreport.WriteSwitches(e.stdout)
			return nil
		}
		if len(rest) > 0 && rest[0] == "where" {
			writeFitted(e.stdout, query.FilterHelp())
			return nil
		}
		if len(rest) > 0 {
			c := lookup(rest[0])
			if c == nil {
				return unknownHelp(rest[0])
			}
			printCommandHelp(e.stdout, c)
			return nil
		}
		printUsage(e.stdout)
		return nil
	case "-v", "--version":
		name = "version"
	}
	c := lookup(name)
	if c == nil {
		return unknownCommand(name)
	}
	fs := flag.NewFlagSet("seam "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	r := c.new()
	r.flags(fs)
	if err := cli.ParseInterspersed(fs, rest); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printCommandHelp(e.stdout, c)
			return nil
		}
		return &usageError{cmd: c.name, msg: err.Error(), example: c.example}
	}
	if pagedCommands[c.name] {
		var done func()
		e, done = e.withPager()
		defer done()
	}
	err := r.run(ctx, e, fs)
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return errInterrupted
	}
	if leftPager(e, err) {
		return nil
	}
	return err
}

func unknownCommand(name string) error {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return &usageError{msg: fmt.Sprintf("unknown command %q (commands: %s)", name, strings.Join(names, ", ")), example: "seam help"}
}

// unknownHelp is "seam help NAME" for a NAME that is neither a command nor
// a help topic.
func unknownHelp(name string) error {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return &usageError{msg: fmt.Sprintf("no help for %q: the topics are switches and where, and the commands %s", name, strings.Join(names, ", ")), example: "seam help where"}
}

// printUsage writes "seam help": help/seam.txt with a line per command.
func printUsage(out io.Writer) {
	var list strings.Builder
	for _, c := range commands() {
		fmt.Fprintf(&list, "  %-10s %s\n", c.name, c.summary)
	}
	writeFitted(out, strings.Replace(helpText("seam"), "{{commands}}\n", list.String(), 1))
}

func printCommandHelp(out io.Writer, c *command) {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	c.new().flags(fs)
	writeFitted(out, cli.Help(c.usage, helpText(c.name), c.example, fs))
}

// isSet reports whether the flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool { return cli.IsSet(fs, name) }

// writeJSON writes v as indented JSON, as seam prints JSON
// (visible.EncodeJSON): what a capture holds may be printed.
func writeJSON(w io.Writer, v any) error {
	b, err := visible.EncodeJSON(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

// termWidth returns the width a table written to out must fit: the
// terminal's columns when out is one, else $COLUMNS when set, else 0 (no
// limit: a pipe gets every column).
func termWidth(e *env, out io.Writer) int {
	if e.paging && out == e.stdout && e.pageWidth > 0 {
		return e.pageWidth
	}
	if f, ok := out.(*os.File); ok && tui.IsTerminal(out) {
		if w, _, err := term.GetSize(f.Fd()); err == nil && w > 0 {
			return w
		}
	}
	if n, err := strconv.Atoi(e.getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 0
}
