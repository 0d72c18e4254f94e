package inspect

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/seam-dev/seam/internal/textdiff"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// checkEdits checks that the edits compareSides keeps for
// diff.boundary-dedupe are the character diff of the whole texts, as
// textdiff.Diff gives it (compareSides diffs only the span where they differ),
// and add up to the two texts byte for byte, UTF-8 or not; and that the
// hunks start within the texts.
func checkEdits(t *testing.T, a, b string) {
	t.Helper()
	d, got := compareSides(DiffUpstreamClient, diffSide{text: a}, diffSide{text: b}, true)
	for _, h := range d.Hunks {
		if h.AOff > len(a) || h.BOff > len(b) || h.aEnd > len(a) || h.bEnd > len(b) {
			t.Fatalf("diff of %q and %q: hunk %+v past the texts", a, b, h)
		}
	}
	if got != nil {
		var ra, rb strings.Builder
		for _, e := range got {
			if e.Type != diffmatchpatch.DiffInsert {
				ra.WriteString(e.Text)
			}
			if e.Type != diffmatchpatch.DiffDelete {
				rb.WriteString(e.Text)
			}
		}
		if ra.String() != a || rb.String() != b {
			t.Fatalf("edits of %q and %q give back %q and %q", a, b, ra.String(), rb.String())
		}
	}
	if !utf8.ValidString(a) || !utf8.ValidString(b) {
		return // textdiff.Diff reads stray bytes as U+FFFD
	}
	want := textdiff.Diff(a, b)
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
	{"a\xe2b", "a\xe3b"}, {"\xff\xfe", "\xfe"}, {"a\U0010FFE2b", "a\xe2b"}, {"é\xc3x", "\xc3\xa9x"},
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
		if len(a)+len(b) > textdiff.CharDiffMax {
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

// TestDiffOfStrayBytes: texts holding bytes that are not UTF-8 (a stream
// may carry any) are diffed at their real offsets: a client that gets
// "a€" where the upstream sent "a" and a stray byte has one text
// difference at byte 1, and the reports are written.
func TestDiffOfStrayBytes(t *testing.T) {
	t.Parallel()
	in := exInput{up: cc(chatRole) + ccf("{\"content\":\"a\xe2 b\xff\"}", "stop") + done, client: cc(chatRole) + ccf("{\"content\":\"a\xe2\x82\xac b\xff\"}", "stop") + done}
	r := Inspect(in.capture(), Options{})
	d := r.Exchanges[0].Diffs
	if len(d) != 1 || len(d[0].Hunks) != 1 || d[0].Hunks[0].AOff != 1 || d[0].Hunks[0].BOff != 1 {
		t.Fatalf("diffs %+v, want one hunk at byte 1", d)
	}
	if !strings.Contains(findingIDs(r.Exchanges[0].Findings), "diff.upstream-client") {
		t.Errorf("findings %s", findingIDs(r.Exchanges[0].Findings))
	}
	var b strings.Builder
	if err := WriteText(&b, r, false); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
}
