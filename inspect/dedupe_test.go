package inspect

import (
	"reflect"
	"testing"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// checkPureInsertion checks that whenever pureInsertion(a, b) holds, the
// rune diff boundaryDedupe computes has no deletion, so skipping it loses
// no finding.
func checkPureInsertion(t *testing.T, a, b string) {
	t.Helper()
	if !pureInsertion(a, b) {
		return
	}
	for _, d := range diffmatchpatch.New().DiffMain(a, b, false) {
		if d.Type == diffmatchpatch.DiffDelete {
			t.Fatalf("pureInsertion(%q, %q) but the diff deletes %q", a, b, d.Text)
		}
	}
}

var insertionCases = [][2]string{
	{"", ""}, {"", "x"}, {"abc", "abc"}, {"abc", "abXc"}, {"abc", "abcX"}, {"abc", "Xabc"}, {"abc", "ab"},
	{"a>", "a<use_tool>x</use_tool>"}, {"a\xe2", "a\xe2\x82\xac"}, {"\xe2\x82", "\xe2\x82\xac\xe2\x82"},
	{"é", "è"}, {"aé", "aXé"}, {"a\xff", "a\xffb"}, {"a\xc3", "a\xc3\xa9\xc3"}, {"ab", "aab"}, {"aa", "aaa"},
}

func TestPureInsertion(t *testing.T) {
	t.Parallel()
	for _, c := range insertionCases {
		checkPureInsertion(t, c[0], c[1])
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{{"abc", "abXc", true}, {"abc", "abc", true}, {"abc", "ac", false}, {"a>", "a<x>", true}, {"é", "è", false}} {
		if got := pureInsertion(c.a, c.b); got != c.want {
			t.Errorf("pureInsertion(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func FuzzPureInsertion(f *testing.F) {
	for _, c := range insertionCases {
		f.Add(c[0], c[1])
	}
	f.Fuzz(checkPureInsertion)
}

// TestNoDiffsKeepsFindings: Options.NoDiffs only leaves the diffs out of the
// report; the detectors that compare the sides still fire (the seam check,
// demo, replay and diff commands inspect with NoDiffs).
func TestNoDiffsKeepsFindings(t *testing.T) {
	t.Parallel()
	dedupe := exInput{up: chatText("timeand", "date"), client: chatText("timeand", "ate")}
	r := Inspect(dedupe.capture(), Options{NoDiffs: true})
	x := r.Exchanges[0]
	if len(x.Diffs) != 0 {
		t.Errorf("NoDiffs report holds %d diffs", len(x.Diffs))
	}
	ids := map[string]bool{}
	for _, f := range x.Findings {
		ids[f.ID] = true
	}
	for _, id := range []string{"diff.upstream-client", "diff.boundary-dedupe"} {
		if !ids[id] {
			t.Errorf("%s missing with NoDiffs; findings: %s", id, findingIDs(x.Findings))
		}
	}
	for _, tc := range detectorCases() {
		for _, in := range []exInput{tc.fire, tc.calm} {
			with := Inspect(in.capture(), Options{})
			without := Inspect(in.capture(), Options{NoDiffs: true})
			for i := range with.Exchanges {
				if a, b := with.Exchanges[i].Findings, without.Exchanges[i].Findings; !reflect.DeepEqual(a, b) {
					t.Errorf("%s: findings differ with NoDiffs:\n%s\n%s", tc.id, findingIDs(a), findingIDs(b))
				}
			}
		}
	}
}
