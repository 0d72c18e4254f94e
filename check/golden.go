package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible"
)

// Golden is the content of a <fixture>.expect.json file.
type Golden struct {
	// Engine is informational: the engine recorded in the fixture.
	Engine    string           `json:"engine"`
	Exchanges []GoldenExchange `json:"exchanges"`
}

// GoldenExchange is what a golden expects of one exchange.
type GoldenExchange struct {
	Ex int `json:"ex"`
	// Findings holds one line per warn or error finding (FindingLines).
	Findings []string `json:"findings"`
}

// GoldenPath returns the golden of a fixture: x.expect.json beside
// x.ndjson (and x.ndjson.zst).
func GoldenPath(fixture string) string {
	fixture = strings.TrimSuffix(fixture, tape.CompressedExt)
	return strings.TrimSuffix(fixture, filepath.Ext(fixture)) + ".expect.json"
}

// checkGolden compares what a fixture's replay found with the golden at
// gp, or with update writes it there.
func checkGolden(gp string, got Golden, update bool) ([]string, error) {
	if update {
		b, err := encodeGolden(got)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(gp, b, 0o644); err != nil {
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
	var want Golden
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&want); err != nil {
		return nil, fmt.Errorf("golden %s: %w", gp, err)
	}
	return CompareGolden(want, got), nil
}

// encodeGolden renders a golden as indented JSON without HTML escaping,
// with every character that acts on a terminal escaped (visible.JSON), as
// seam prints JSON.
func encodeGolden(g Golden) ([]byte, error) {
	b, err := visible.EncodeJSON(g, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode JSON: %w", err)
	}
	return b, nil
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

// FindingLines renders the warn and error findings as golden lines,
// sorted: "severity id side event N: evidence", the evidence cut to 80
// bytes on a rune boundary and kept on one line.
func FindingLines(fs []inspect.Finding) []string {
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
			line += ": " + oneLine.Replace(excerpt.Clip(f.Evidence, 80))
		}
		lines = append(lines, line)
	}
	slices.Sort(lines)
	return lines
}

// oneLine keeps a golden line on one line.
var oneLine = strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`)

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

// CompareGolden lists the differences between the expected and the found
// findings, exchange by exchange, as -/+ lines; none when they agree.
// Findings are counted: one found twice and expected once differs.
func CompareGolden(want, got Golden) []string {
	index := func(g Golden) map[int][]string {
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
