// Package cli is the part of seam's command line that does not depend on
// its commands: flags read wherever they stand among the arguments, the
// help page of a command laid out from its flag set, and the flag values
// a command repeats (a list, switch=value pairs).
package cli

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/seam-dev/seam/internal/units"
)

// ParseInterspersed parses flags wherever they stand among the arguments
// (seam inspect FILE --json is seam inspect --json FILE), as users type
// them. A lone "-" is an argument (stdin or stdout); after "--" everything
// is an argument. The arguments end up in fs.Args, in their order.
func ParseInterspersed(fs *flag.FlagSet, args []string) error {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		// Parse stops at the first argument, or after a "--" it removes.
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	// Parsing "--" alone sets nothing but the arguments.
	return fs.Parse(append([]string{"--"}, pos...))
}

// IsSet reports whether the flag name was given on the command line (not
// left at its default).
func IsSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// Help returns a command's help page: the synopsis (usage), the text
// (help), its flags in name order with their defaults, and an example;
// the flags and the example are left out when there are none.
func Help(usage, help, example string, fs *flag.FlagSet) string {
	var w strings.Builder
	fmt.Fprintf(&w, "Usage: %s\n\n%s\n", usage, strings.TrimSpace(help))
	var lines []string
	fs.VisitAll(func(f *flag.Flag) {
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		name, usage := flag.UnquoteUsage(f)
		head := dash + f.Name
		if name != "" {
			head += " " + name
		}
		line := fmt.Sprintf("  %-24s  %s", head, usage)
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
			line += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		lines = append(lines, line)
	})
	if len(lines) == 0 {
		return w.String()
	}
	sort.Strings(lines)
	fmt.Fprintf(&w, "\nFlags:\n%s\n", strings.Join(lines, "\n"))
	if example != "" {
		fmt.Fprintf(&w, "\nExample:\n  %s\n", example)
	}
	return w.String()
}

// List collects a repeated flag's values, in order.
type List []string

func (l *List) String() string { return strings.Join(*l, ",") }

// Set adds v.
func (l *List) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// Pairs collects repeated key=value flags (--set holdback=on), the last
// value of a key winning; space around the key and the value is dropped.
type Pairs map[string]string

func (p *Pairs) String() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(*p)) {
		parts = append(parts, k+"="+(*p)[k])
	}
	return strings.Join(parts, ",")
}

// Set adds one key=value.
func (p *Pairs) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("want switch=value, got %q", v)
	}
	if *p == nil {
		*p = map[string]string{}
	}
	(*p)[strings.TrimSpace(k)] = strings.TrimSpace(val)
	return nil
}

// Size is a flag holding a size in bytes, written as units.ParseBytes
// reads it (64MiB, 1GB, 512KiB); it must be above zero.
type Size int64

func (s *Size) String() string {
	if *s == 0 {
		return ""
	}
	return units.Bytes(int64(*s))
}

// Set parses v.
func (s *Size) Set(v string) error {
	n, err := units.ParseBytes(v)
	if err != nil {
		return fmt.Errorf("want a size such as 64MiB: %v", err)
	}
	if n < 1 {
		return fmt.Errorf("%q: want a size above zero, such as 64MiB", v)
	}
	*s = Size(n)
	return nil
}
