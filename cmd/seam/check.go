package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible"
)

type checkOptions struct {
	update bool
	json   bool
	junit  string
	faults faultFlag
	seed   uint64
}

func checkCommand() *command {
	return &command{
		name:    "check",
		summary: "CI regression: replay fixtures, compare chunk by chunk and findings with goldens",
		usage:   "seam check [--update] [--json] [--junit FILE] [--fault F]... DIR|CAPTURE...",
		help: `
For every fixture capture, rebuilds the engine recorded in its header,
replays the recorded upstream chunks through it and compares the produced
client stream with the recorded one frame by frame (bytes and boundaries);
then inspects the replayed exchange and compares its findings (warn and
error) with the golden beside the fixture, <fixture>.expect.json. Prints one
ok or FAIL line per fixture, with what differs, then "N passed, N failed",
and exits 1 on any failure. --update rewrites the goldens from what the
replay finds; review them with git diff.

For CI systems: --json prints the results as one JSON document instead
({"passed", "failed", "fixtures": [{"path", "ok", "problems", "ms"}]}), and
--junit FILE also writes them as JUnit XML, one test case per fixture whose
failure holds the first differing frame and the findings diff.

An exchange with no client side (an imported recording) has nothing to
compare the replayed stream with; only its findings are checked.
` + checkFaultsHelp,
		example: "seam check fixtures/",
		flags: func(fs *flag.FlagSet) any {
			o := &checkOptions{}
			fs.BoolVar(&o.update, "update", false, "rewrite the goldens")
			fs.BoolVar(&o.json, "json", false, "print the results as JSON")
			fs.StringVar(&o.junit, "junit", "", "also write the results as JUnit XML to `file` (- for stdout, instead of the results)")
			fs.Var(&o.faults, "fault", "also replay with `fault` (split-event, split-rune, coalesce, latency, stall, jitter) and check nothing changes (repeatable)")
			fs.Uint64Var(&o.seed, "seed", 1, "`seed` for the positions faults pick")
			return o
		},
		run: runCheck,
	}
}

// errCheckFailed reports failing fixtures: exit status 1.
var errCheckFailed = errors.New("check failed")

// golden is the content of a <fixture>.expect.json file.
type golden struct {
	// Engine is informational: the engine recorded in the fixture.
	Engine    string           `json:"engine"`
	Exchanges []goldenExchange `json:"exchanges"`
}

type goldenExchange struct {
	Ex int `json:"ex"`
	// Findings holds one line per warn or error finding:
	// "severity id side event N: evidence".
	Findings []string `json:"findings"`
}

func goldenPath(fixture string) string {
	fixture = strings.TrimSuffix(fixture, tape.CompressedExt) // x.ndjson.zst has x.expect.json
	return strings.TrimSuffix(fixture, filepath.Ext(fixture)) + ".expect.json"
}

// checkResult is what seam check found for one fixture.
type checkResult struct {
	Path     string   `json:"path"`
	OK       bool     `json:"ok"`
	Problems []string `json:"problems,omitempty"`
	// Ms is how long the fixture took, in milliseconds.
	Ms float64 `json:"ms"`
}

func runCheck(ctx context.Context, e *env, fs *flag.FlagSet, opts any) error {
	batchGC(e)
	o := opts.(*checkOptions)
	if fs.NArg() == 0 {
		return &usageError{cmd: "check", msg: "no fixtures given", example: "seam check fixtures/"}
	}
	if o.json && o.junit == "-" {
		return &usageError{cmd: "check", msg: "--json and --junit - both want stdout", example: "seam check --json --junit report.xml fixtures/"}
	}
	if err := checkFaultable(o.faults); err != nil {
		return &usageError{cmd: "check", msg: err.Error(), example: "seam check --fault split-rune --fault coalesce=3 fixtures/"}
	}
	if o.update && len(o.faults) > 0 {
		return &usageError{cmd: "check", msg: "--update writes the goldens of the replay without faults: leave --fault out", example: "seam check --update fixtures/"}
	}
	paths, err := captures.Expand(ctx, fs.Args(), e.open())
	if err != nil {
		return err
	}
	start := time.Now()
	var results []checkResult
	passed, failed := 0, 0
	for _, p := range paths {
		t0 := time.Now()
		problems := checkFixture(ctx, e, p, o)
		if err := ctx.Err(); err != nil {
			return err // interrupted: the fixture did not fail
		}
		results = append(results, checkResult{Path: p, OK: len(problems) == 0, Problems: problems, Ms: float64(time.Since(t0).Microseconds()) / 1000})
		if len(problems) == 0 {
			passed++
		} else {
			failed++
		}
		if o.json || o.junit == "-" {
			continue
		}
		if len(problems) == 0 {
			fmt.Fprintf(e.stdout, "ok    %s\n", visible.String(p))
			continue
		}
		fmt.Fprintf(e.stdout, "FAIL  %s\n", visible.String(p))
		for _, pr := range problems {
			// Problems quote the fixture: evidence, frames, warnings.
			fmt.Fprintf(e.stdout, "      %s\n", strings.ReplaceAll(visible.Text(pr), "\n", "\n      "))
		}
	}
	switch {
	case o.json:
		if err := writeJSON(e.stdout, struct {
			Passed   int           `json:"passed"`
			Failed   int           `json:"failed"`
			Fixtures []checkResult `json:"fixtures"`
		}{passed, failed, results}); err != nil {
			return err
		}
	case o.junit != "-":
		fmt.Fprintf(e.stdout, "%d passed, %d failed\n", passed, failed)
	}
	if o.junit != "" {
		cases := make([]junitCase, len(results))
		for i, r := range results {
			cases[i] = junitCase{Name: r.Path, Classname: "seam.check", Time: junitSeconds(time.Duration(r.Ms * float64(time.Millisecond)))}
			if !r.OK {
				cases[i].Failure = newFailure("seam.check", r.Problems)
			}
		}
		if err := writeJUnitFile(e.stdout, o.junit, "seam check", cases, time.Since(start)); err != nil {
			return err
		}
	}
	if failed > 0 {
		return errCheckFailed
	}
	return nil
}

// checkFixture replays one fixture and compares it with its recording and
// its golden (with --update, writes the golden); with --fault, it replays
// each exchange again under the faults and compares that with the plain
// replay. It returns what differs, and what went wrong reading the
// fixture or its golden.
func checkFixture(ctx context.Context, e *env, path string, o *checkOptions) []string {
	src, err := captures.Open(ctx, path, e.open())
	if err != nil {
		return []string{err.Error()}
	}
	defer src.Close()
	h := src.Header()
	var problems, faulted []string
	eng := recordedEngine(h)
	got := golden{Engine: engineSummary(eng)}
	in := inspect.NewInspector(path, *h, inspect.Options{NoDiffs: true})
	var fc *faultCheck
	if len(o.faults) > 0 {
		fc = newFaultCheck(path, *h, eng, o.faults, o.seed)
	}
	for {
		if ctx.Err() != nil {
			return nil // interrupted: runCheck says so, not the fixture
		}
		x, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return append(problems, err.Error())
		}
		replayed := x
		if x.Upstream.Response != nil {
			res, err := replay.Exchange(ctx, x, eng, replay.Options{})
			if err != nil {
				return append(problems, err.Error())
			}
			if !res.Identical() && !res.NoClient {
				problems = append(problems, fmt.Sprintf("exchange %d: replay %s", x.Ex, res.Describe()))
			}
			replayed = res.ToExchange(x)
		}
		rep := in.Exchange(replayed)
		got.Exchanges = append(got.Exchanges, goldenExchange{Ex: rep.Ex, Findings: findingLines(rep.Findings)})
		if fc != nil {
			more, err := fc.check(ctx, x, rep)
			if err != nil {
				return append(problems, err.Error())
			}
			faulted = append(faulted, more...)
		}
	}
	var warned []string
	for _, w := range src.Warnings() {
		warned = append(warned, "capture: "+w.Error())
	}
	problems = append(warned, problems...)
	slices.SortStableFunc(got.Exchanges, func(a, b goldenExchange) int { return a.Ex - b.Ex })
	more, err := checkGolden(goldenPath(path), got, o.update)
	if err != nil {
		more = append(more, err.Error())
	}
	return append(append(problems, more...), faulted...)
}

// checkGolden compares what a fixture's replay found with the golden at
// gp, or with update writes it there.
func checkGolden(gp string, got golden, update bool) ([]string, error) {
	if update {
		var b bytes.Buffer
		if err := writeJSON(&b, got); err != nil {
			return nil, err
		}
		if err := os.WriteFile(gp, b.Bytes(), 0o644); err != nil {
			return nil, fmt.Errorf("update golden: %w", err)
		}
		return nil, nil
	}
	// Only a regular file: a golden that is a named pipe (a fixtures
	// directory from a tarball can hold one) would hold seam check forever.
	b, err := readRegular(gp)
	if errors.Is(err, os.ErrNotExist) {
		return []string{fmt.Sprintf("no golden %s; create it with seam check --update", filepath.Base(gp))}, nil
	}
	if err != nil {
		return nil, err
	}
	var want golden
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&want); err != nil {
		return nil, fmt.Errorf("golden %s: %w", gp, err)
	}
	return compareGolden(want, got), nil
}

// readRegular reads the file at path whole, if it is a regular file (see
// tape.OpenRegular).
func readRegular(path string) ([]byte, error) {
	f, err := tape.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// findingLines renders the warn and error findings as golden lines.
func findingLines(fs []inspect.Finding) []string {
	lines := []string{}
	for _, f := range fs {
		if f.Severity < inspect.Warn {
			continue
		}
		where := "request"
		if f.Pointer.Side != "" {
			where = string(f.Pointer.Side)
			if f.Pointer.Event >= 0 {
				where += fmt.Sprintf(" event %d", f.Pointer.Event)
			}
		}
		line := fmt.Sprintf("%s %s %s", f.Severity, f.ID, where)
		if f.Evidence != "" {
			line += ": " + visibleEscapes.Replace(excerpt.Clip(f.Evidence, 80))
		}
		lines = append(lines, line)
	}
	slices.Sort(lines)
	return lines
}

// visibleEscapes keeps a golden line on one line.
var visibleEscapes = strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`)

// countDiff compares two lists of lines as multisets: a line expected twice
// and found once is missing once. It returns "- line" for each missing
// occurrence and "+ line" for each extra one, in line order.
func countDiff(want, got []string) []string {
	n := map[string]int{}
	for _, l := range want {
		n[l]++
	}
	for _, l := range got {
		n[l]--
	}
	keys := slices.Sorted(maps.Keys(n))
	var missing, extra []string
	for _, l := range keys {
		for k := n[l]; k > 0; k-- {
			missing = append(missing, "- "+l)
		}
		for k := n[l]; k < 0; k++ {
			extra = append(extra, "+ "+l)
		}
	}
	return append(missing, extra...)
}

// compareGolden lists the differences between the expected and the found
// findings, exchange by exchange, as -/+ lines.
func compareGolden(want, got golden) []string {
	index := func(g golden) map[int][]string {
		m := map[int][]string{}
		for _, x := range g.Exchanges {
			m[x.Ex] = x.Findings
		}
		return m
	}
	w, g := index(want), index(got)
	var exs []int
	for ex := range w {
		exs = append(exs, ex)
	}
	for ex := range g {
		if _, ok := w[ex]; !ok {
			exs = append(exs, ex)
		}
	}
	slices.Sort(exs)
	var problems []string
	for _, ex := range exs {
		if lines := countDiff(w[ex], g[ex]); len(lines) > 0 {
			problems = append(problems, fmt.Sprintf("exchange %d: findings differ from the golden (- expected, + found):\n%s", ex, strings.Join(lines, "\n")))
		}
	}
	return problems
}
