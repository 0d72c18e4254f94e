package cli

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestParseInterspersed: flags count wherever they stand, "-" is an
// argument, "--" ends the flags, and the arguments keep their order.
func TestParseInterspersed(t *testing.T) {
	for _, c := range []struct {
		args []string
		json bool
		ex   int
		rest []string
	}{
		{[]string{"a.ndjson", "--json"}, true, 0, []string{"a.ndjson"}},
		{[]string{"--ex", "3", "a", "-", "b", "--json"}, true, 3, []string{"a", "-", "b"}},
		{[]string{"a", "--", "--json", "-ex"}, false, 0, []string{"a", "--json", "-ex"}},
		{[]string{"--json", "--", "b"}, true, 0, []string{"b"}},
		{nil, false, 0, []string{}},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		json := fs.Bool("json", false, "")
		ex := fs.Int("ex", 0, "")
		if err := ParseInterspersed(fs, c.args); err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		if *json != c.json || *ex != c.ex || !slices.Equal(append([]string{}, fs.Args()...), c.rest) {
			t.Errorf("%q: json %v ex %d args %q, want %v %d %q", c.args, *json, *ex, fs.Args(), c.json, c.ex, c.rest)
		}
		if IsSet(fs, "json") != c.json {
			t.Errorf("%q: IsSet(json) = %v", c.args, !c.json)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := ParseInterspersed(fs, []string{"a", "--nope"}); err == nil {
		t.Error("an unknown flag after an argument was accepted")
	}
}

// TestHelp: the synopsis, the text, the flags sorted with their
// placeholders and non-zero defaults, then the example; no flag section
// for a command without flags.
func TestHelp(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.String("o", "", "write to `file`")
	fs.Float64("speed", 1, "playback speed")
	fs.Bool("json", false, "print JSON")
	got := Help("seam x [flags] FILE", "\nDoes x.\n", "seam x a", fs)
	want := "Usage: seam x [flags] FILE\n\nDoes x.\n\nFlags:\n" +
		"  --json                    print JSON\n" +
		"  --speed float             playback speed (default 1)\n" +
		"  -o file                   write to file\n" +
		"\nExample:\n  seam x a\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := Help("seam v", "Prints.", "seam v", flag.NewFlagSet("v", flag.ContinueOnError)); got != "Usage: seam v\n\nPrints.\n" {
		t.Errorf("no flags: %q", got)
	}
}

// TestRepeatedFlags: a List keeps every value in order; Pairs keeps the
// last value of a key, trims space, and refuses a value without a key.
func TestRepeatedFlags(t *testing.T) {
	var l List
	l.Set("a")
	l.Set("b")
	if l.String() != "a,b" {
		t.Errorf("List %q", l.String())
	}
	var p Pairs
	for _, v := range []string{"holdback = on", "b=1", "holdback=off"} {
		if err := p.Set(v); err != nil {
			t.Fatal(err)
		}
	}
	if p.String() != "b=1,holdback=off" {
		t.Errorf("Pairs %q", p.String())
	}
	for _, v := range []string{"holdback", " =on"} {
		if err := p.Set(v); err == nil || !strings.Contains(err.Error(), "want switch=value") {
			t.Errorf("Set(%q): %v", v, err)
		}
	}
}
