package inspect

import (
	"slices"
	"strconv"
	"strings"
)

// FindingsDelta compares the findings of one exchange before and after a
// change (a recorded client side and a replay of it): the counts per
// severity and the detector ids that appear or go away.
type FindingsDelta struct {
	// Before and After count the findings per severity (index Info, Warn,
	// Error).
	Before, After [3]int
	// Gone and New list the detector ids whose findings went away or
	// appeared (with how many, "xml.unclosed-closer ×2"), sorted.
	Gone, New []string
}

// CompareFindings compares two lists of findings.
func CompareFindings(before, after []Finding) FindingsDelta {
	var d FindingsDelta
	nb, na := map[string]int{}, map[string]int{}
	for _, f := range before {
		d.Before[f.Severity]++
		nb[f.ID]++
	}
	for _, f := range after {
		d.After[f.Severity]++
		na[f.ID]++
	}
	count := func(id string, n int) string {
		if n == 1 {
			return id
		}
		return id + " ×" + strconv.Itoa(n)
	}
	for id, n := range nb {
		if n > na[id] {
			d.Gone = append(d.Gone, count(id, n-na[id]))
		}
	}
	for id, n := range na {
		if n > nb[id] {
			d.New = append(d.New, count(id, n-nb[id]))
		}
	}
	slices.Sort(d.Gone)
	slices.Sort(d.New)
	return d
}

// Same reports whether nothing changed.
func (d FindingsDelta) Same() bool { return d.Before == d.After && len(d.Gone) == 0 && len(d.New) == 0 }

// String renders the delta on one line, e.g. "errors 2 → 0, warnings 1 →
// 1, info 1 → 1; gone: xml.nested-opener, xml.unclosed-closer".
func (d FindingsDelta) String() string {
	var b strings.Builder
	for i, s := range []Severity{Error, Warn, Info} {
		if i > 0 {
			b.WriteString(", ")
		}
		name := map[Severity]string{Error: "errors", Warn: "warnings", Info: "info"}[s]
		b.WriteString(name + " " + strconv.Itoa(d.Before[s]) + " → " + strconv.Itoa(d.After[s]))
	}
	if len(d.Gone) > 0 {
		b.WriteString("; gone: " + strings.Join(d.Gone, ", "))
	}
	if len(d.New) > 0 {
		b.WriteString("; new: " + strings.Join(d.New, ", "))
	}
	return b.String()
}
