// Package docs holds no code: its test holds the maps of the house in
// ARCHITECTURE.md and the README to the imports `go list` reports.
package docs

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

const module = "github.com/seam-dev/seam/"

// deps returns, for each package of the module (named without the module
// path, "cmd/seam" as it is), the module's packages it imports directly
// and those it depends on at any depth.
func deps(t *testing.T) (direct, all map[string]map[string]bool) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}|{{join .Deps \" \"}}", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	direct, all = map[string]map[string]bool{}, map[string]map[string]bool{}
	ours := func(list string) map[string]bool {
		m := map[string]bool{}
		for _, p := range strings.Fields(list) {
			if strings.HasPrefix(p, module) {
				m[strings.TrimPrefix(p, module)] = true
			}
		}
		return m
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		p := strings.TrimPrefix(f[0], module)
		direct[p], all[p] = ours(f[1]), ours(f[2])
	}
	return direct, all
}

// TestLayers: ARCHITECTURE.md's table of layers is the import graph: every
// package of the module is in one layer (internal/* with the leaves, test
// helpers and fixtures aside), and no package imports one in a layer above
// its own.
func TestLayers(t *testing.T) {
	direct, _ := deps(t)
	doc, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	layer := map[string]int{}
	row := regexp.MustCompile("^\\| ([a-z ]+) \\| (.*?) \\| ")
	name := regexp.MustCompile("`([a-z0-9/*-]+)`")
	n := 0
	for _, line := range strings.Split(string(doc), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil || m[1] == "layer" {
			continue
		}
		for _, p := range name.FindAllStringSubmatch(m[2], -1) {
			layer[p[1]] = n
		}
		n++
	}
	if n < 5 {
		t.Fatalf("ARCHITECTURE.md: found %d layers in its table", n)
	}
	of := func(p string) (int, bool) {
		if strings.HasPrefix(p, "internal/") {
			p = "internal/*"
		}
		l, ok := layer[p]
		return l, ok
	}
	for p, imports := range direct {
		if strings.HasPrefix(p, "fixtures") || strings.HasPrefix(p, "examples") || strings.HasSuffix(p, "test") || p == "docs" {
			continue
		}
		lp, ok := of(p)
		if !ok {
			t.Errorf("ARCHITECTURE.md: package %s is in no layer", p)
			continue
		}
		for q := range imports {
			if lq, ok := of(q); ok && lq < lp {
				t.Errorf("ARCHITECTURE.md: %s imports %s, which the table puts in a layer above it", p, q)
			}
		}
	}
}

// TestReadmeImportFlow: each arrow a → b of the README's import flow is
// true (a depends on b) and one way (b does not depend on a).
func TestReadmeImportFlow(t *testing.T) {
	_, all := deps(t)
	doc, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start := strings.Index(text, "Imports flow one way")
	if start < 0 {
		t.Fatal("README.md: no \"Imports flow one way\" section")
	}
	text = text[start:]
	list := strings.Index(text, "\n- ")
	if end := strings.Index(text[list:], "\n\n"); list >= 0 && end >= 0 {
		text = text[:list+end]
	}
	arrows := 0
	for _, code := range regexp.MustCompile("`([^`]*→[^`]*)`").FindAllStringSubmatch(text, -1) {
		for _, a := range flowArrows(t, strings.Join(strings.Fields(code[1]), " ")) {
			arrows++
			from, to := pkg(a[0]), pkg(a[1])
			if _, ok := all[from]; !ok {
				t.Errorf("README.md: %q in %q is not a package", a[0], code[1])
				continue
			}
			if _, ok := all[to]; !ok {
				t.Errorf("README.md: %q in %q is not a package", a[1], code[1])
				continue
			}
			if !all[from][to] {
				t.Errorf("README.md: %s → %s (in %q), but %s does not depend on %s", a[0], a[1], code[1], from, to)
			}
			if all[to][from] {
				t.Errorf("README.md: %s → %s (in %q), but %s depends on %s too", a[0], a[1], code[1], to, from)
			}
		}
	}
	if arrows < 20 {
		t.Fatalf("README.md: read %d arrows of its import flow", arrows)
	}
}

// pkg is the package a name in the flow stands for.
func pkg(name string) string {
	if name == "cmd" {
		return "cmd/seam"
	}
	return name
}

// flowArrows reads a line of the flow, such as
// "cmd → {tui, textreport} → query → {session → request} → protocol", and
// returns its arrows, a pair of names each: every tail of a term to every
// head of the next, and those inside braces.
func flowArrows(t *testing.T, s string) [][2]string {
	p := &flowParser{s: s}
	_, _, arrows := p.expr()
	if p.s != "" {
		t.Errorf("README.md: cannot read %q of the import flow", p.s)
	}
	return arrows
}

type flowParser struct{ s string }

// expr reads term (→ term)*, returning its first term's heads, its last
// term's tails, and its arrows.
func (p *flowParser) expr() (heads, tails []string, arrows [][2]string) {
	heads, tails, arrows = p.term()
	for p.eat("→") {
		h, tl, a := p.term()
		for _, x := range tails {
			for _, y := range h {
				arrows = append(arrows, [2]string{x, y})
			}
		}
		arrows, tails = append(arrows, a...), tl
	}
	return heads, tails, arrows
}

// term reads a name or {expr, expr, ...}.
func (p *flowParser) term() (heads, tails []string, arrows [][2]string) {
	if !p.eat("{") {
		i := strings.IndexAny(p.s, " ,}")
		if i < 0 {
			i = len(p.s)
		}
		name := p.s[:i]
		p.s = strings.TrimSpace(p.s[i:])
		return []string{name}, []string{name}, nil
	}
	for {
		h, tl, a := p.expr()
		heads, tails, arrows = append(heads, h...), append(tails, tl...), append(arrows, a...)
		if !p.eat(",") {
			break
		}
	}
	p.eat("}")
	return heads, tails, arrows
}

func (p *flowParser) eat(tok string) bool {
	if strings.HasPrefix(p.s, tok) {
		p.s = strings.TrimSpace(p.s[len(tok):])
		return true
	}
	return false
}
