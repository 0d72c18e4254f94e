package inspect

import (
	"reflect"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// checkEdits checks that the edits compareSides keeps for
// diff.boundary-dedupe are the character diff of the whole texts, as
// textDiff gives it (compareSides diffs only the span where they differ).
func checkEdits(t *testing.T, a, b string) {
	t.Helper()
	if !utf8.ValidString(a) || !utf8.ValidString(b) {
		return
	}
	_, got := compareSides(DiffUpstreamClient, diffSide{text: a}, diffSide{text: b}, true)
	want := textDiff(a, b)
	if !slices.ContainsFunc(want, func(d diffmatchpatch.Diff) bool { return d.Type == diffmatchpatch.DiffDelete }) {
		want = nil // no deletion: no edits kept
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("edits of %q and %q:\n%v\nwant\n%v", a, b, got, want)
	}
}

var editCases = [][2]string{
	{"", ""}, {"", "x"}, {"abc", "abc"}, {"abc", "abXc"}, {"abc", "abcX"}, {"abc", "Xabc"}, {"abc", "ab"},
	{"a>", "a<use_tool>x</use_tool>"}, {"a\xe2", "a\xe2\x82\xac"}, {"\xe2\x82", "\xe2\x82\xac\xe2\x82"},
	{"é", "è"}, {"aé", "aXé"}, {"a\xff", "a\xffb"}, {"a\xc3", "a\xc3\xa9\xc3"}, {"ab", "aab"}, {"aa", "aaa"},
	{"timeanddate is a site", "timeandate is a site"}, {"the the cat", "the cat"}, {"abcabc", "abc"},
}

func TestBoundaryEdits(t *testing.T) {
	t.Parallel()
	for _, c := range editCases {
		checkEdits(t, c[0], c[1])
	}
}

func FuzzBoundaryEdits(f *testing.F) {
	for _, c := range editCases {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a)+len(b) > charDiffMax {
			t.Skip() // larger texts are diffed by line; compareSides diffs less of them
		}
		checkEdits(t, a, b)
	})
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
