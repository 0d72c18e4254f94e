package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sessionsPath is a chat tool loop of six turns whose fourth request
// leaves out the tool result of turn 2, then another conversation of two
// turns (made with inspect's agent loop test builder).
const sessionsPath = "testdata/sessions.ndjson"

// rowExs lists the exchange numbers of the list's rows.
func rowExs(m *model) []int {
	var out []int
	for _, r := range m.list.rows {
		out = append(out, m.sums[r].ex)
	}
	return out
}

// TestGroupBySession: t lists the exchanges session by session with their
// turns, space folds a session to its first turn and back.
func TestGroupBySession(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, 120, 30, sessionsPath)
	m.regroup = 0
	press(t, m, "s", "s") // sort by duration: the grouping still keeps turn order
	press(t, m, "t")
	got := rowExs(m)
	first := []int{1, 2, 3, 4, 5, 6}
	if len(got) != 8 || !(equalInts(got[:6], first) && equalInts(got[6:], []int{7, 8}) || equalInts(got[2:], first) && equalInts(got[:2], []int{7, 8})) {
		t.Fatalf("grouped rows %v", got)
	}
	id := m.badges[exKey{0, 1}].session.ID
	s := screen(m)
	for _, want := range []string{"session", "▾ " + id + " ×6", "├ turn 2", "└ turn 6", "×2"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	// Fold the session of exchange 1 from its third row.
	for m.sums[m.list.rows[m.list.cursor]].ex != 3 {
		press(t, m, "down")
	}
	press(t, m, "space")
	if got := rowExs(m); len(got) != 3 || !strings.Contains(screen(m), "▸ "+id+" ×6") {
		t.Errorf("folded rows %v:\n%s", got, screen(m))
	}
	if ex := m.sums[m.list.rows[m.list.cursor]].ex; ex != 1 {
		t.Errorf("cursor on exchange %d after folding, want its session's first", ex)
	}
	press(t, m, "space")
	if got := rowExs(m); len(got) != 8 {
		t.Errorf("unfolded rows %v", got)
	}
	press(t, m, "t")
	if got := rowExs(m); len(got) != 8 || strings.Contains(screen(m), "└ turn") {
		t.Errorf("ungrouped: %v\n%s", got, screen(m))
	}
}

// TestSessionView: T shows the session of the exchange under the cursor,
// turn by turn with each one's findings and the session's totals; enter
// opens a turn and esc comes back to the session, then to the list.
func TestSessionView(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, 140, 40, sessionsPath)
	press(t, m, "down", "T")
	if m.screen != screenSession {
		t.Fatalf("screen %d after T", m.screen)
	}
	s := screen(m)
	for _, want := range []string{"6 turns · 5 tool calls · tokens in 2100 out 210", "1 rewrite", "turn 1", "turn 6",
		"tools read_file", "E error session.turn-dropped", "leaves out message 5 (tool result for call_2) that exchange 3 had"} {
		if !strings.Contains(s, want) {
			t.Errorf("session view lacks %q:\n%s", want, s)
		}
	}
	if m.sess.cur != 1 {
		t.Errorf("cursor on turn %d, want the selected exchange's (2)", m.sess.cur+1)
	}
	press(t, m, "down", "down", "enter")
	if m.screen != screenDetail || m.det == nil || m.det.key.ex != 4 {
		t.Fatalf("enter on turn 4 opened %+v", m.det)
	}
	press(t, m, "esc")
	if m.screen != screenSession || m.sess.cur != 3 {
		t.Fatalf("esc from the turn: screen %d, cursor %d", m.screen, m.sess.cur)
	}
	press(t, m, "esc")
	if m.screen != screenList {
		t.Errorf("esc from the session: screen %d", m.screen)
	}
	// An exchange in no session says so.
	m2 := newTestModel(t, 100, 30, incidentPath)
	press(t, m2, "T")
	if m2.screen == screenSession && len(m2.sess.rows) == 0 {
		t.Error("an empty session view")
	}
}

// TestFilterLanguage: the list's filter is inspect's language, its free
// words searching the exchanges' text (request messages included), and a
// filter that does not parse is refused with why, the list unchanged.
func TestFilterLanguage(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, 120, 30, sessionsPath)
	for _, tc := range []struct {
		filter string
		want   []int
	}{
		{"finding=session.*", []int{4}},
		{`"package f3"`, []int{4, 5, 6}},
		{"tool=read_file turn>=2", []int{2, 3, 4, 5, 8}},
		{"tokens.in>=600", []int{6}},
		{"sev>=info tokens.in>=500", []int{5}},
		{`text~f[56]\.go`, []int{5, 6}},
		{"ep:chat outcome=ok status:2", []int{1, 2, 3, 4, 5, 6, 7, 8}},
		{"write README", []int{7, 8}},
	} {
		press(t, m, "f")
		m.inputBuf = ""
		typeText(t, m, tc.filter)
		press(t, m, "enter")
		if got := rowExs(m); !equalInts(got, tc.want) {
			t.Errorf("filter %q: rows %v, want %v", tc.filter, got, tc.want)
		}
	}
	press(t, m, "f")
	m.inputBuf = ""
	typeText(t, m, "modle=x")
	press(t, m, "enter")
	if m.input != inputFilter || !strings.Contains(screen(m), `unknown field "modle"`) {
		t.Errorf("a bad filter: input %d, filter %q\n%s", m.input, m.list.filter, screen(m))
	}
	// The filter applies as it is typed; esc puts back the one before.
	press(t, m, "esc")
	if m.input != inputNone || m.list.filter != "write README" {
		t.Errorf("esc after a bad filter: input %d, filter %q", m.input, m.list.filter)
	}
}

// TestSessionViewNamesCaptures: with several captures open, each turn
// names its capture as the list does, without its extension, compressed
// or not.
func TestSessionViewNamesCaptures(t *testing.T) {
	t.Parallel()
	sessions, err := os.ReadFile(sessionsPath)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeCapture(t, filepath.Join(dir, "a.ndjson"), synthCapture(1, 1, false))
	writeCapture(t, filepath.Join(dir, "turns.ndjson.zst"), zstdBytes(t, sessions))
	m := newTestModel(t, 140, 40, dir)
	press(t, m, "down", "T")
	if m.screen != screenSession {
		t.Fatalf("screen %d after T:\n%s", m.screen, screen(m))
	}
	s := screen(m)
	if !strings.Contains(s, " turns POST ") || strings.Contains(s, "turns.ndjson.zst POST") {
		t.Errorf("the turns do not name their capture as turns:\n%s", s)
	}
}

// TestSessionSearch: a search on the session screen goes from match to
// match with n and N, as the status line says, and esc clears it before
// it leaves the screen.
func TestSessionSearch(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, 140, 40, sessionsPath)
	press(t, m, "down", "T", "/")
	typeText(t, m, "disagree") // turns 1 to 5
	press(t, m, "enter")
	if m.sess.cur != 1 || !strings.Contains(m.status, "match 2 of 5") {
		t.Fatalf("enter: turn %d, status %q; want turn 2, match 2 of 5", m.sess.cur+1, m.status)
	}
	press(t, m, "n")
	if m.sess.cur != 2 || !strings.Contains(m.status, "match 3 of 5") {
		t.Errorf("n: turn %d, status %q; want turn 3, match 3 of 5", m.sess.cur+1, m.status)
	}
	press(t, m, "N", "N")
	if m.sess.cur != 0 || !strings.Contains(m.status, "match 1 of 5") {
		t.Errorf("N N: turn %d, status %q; want turn 1, match 1 of 5", m.sess.cur+1, m.status)
	}
	press(t, m, "esc")
	if m.screen != screenSession || m.search != "" {
		t.Errorf("esc: screen %d, search %q; want the session screen, no search", m.screen, m.search)
	}
	press(t, m, "esc")
	if m.screen != screenList {
		t.Errorf("esc again: screen %d, want the list", m.screen)
	}
}
