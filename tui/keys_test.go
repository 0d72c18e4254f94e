package tui

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// TestHelpTableHasEveryBinding checks that the help cannot drift from the
// keys: every binding of keyMap is in the help table exactly once, with
// keys and a help text, and the full help of each screen lists every
// binding the table says applies there.
func TestHelpTableHasEveryBinding(t *testing.T) {
	t.Parallel()
	k := newKeyMap()
	entries := k.entries()
	v := reflect.ValueOf(&k).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Type() != reflect.TypeOf(key.Binding{}) {
			continue
		}
		name := v.Type().Field(i).Name
		n := 0
		for _, e := range entries {
			if e.b == f.Addr().Interface().(*key.Binding) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s is in the help table %d times, want once", name, n)
		}
		b := f.Interface().(key.Binding)
		if len(b.Keys()) == 0 || b.Help().Key == "" || b.Help().Desc == "" {
			t.Errorf("%s has keys %q and help %+v: the help cannot list it", name, b.Keys(), b.Help())
		}
	}
	for _, where := range []scope{inList, inDetail | inDiff, inDetail | inTimeline, inDetail | inFindings, inPanel, inSession} {
		_, cols := k.fullHelp(where)
		listed := map[string]bool{}
		for _, c := range cols {
			for _, b := range c {
				listed[strings.Join(b.Keys(), " ")] = true
			}
		}
		for _, e := range entries {
			if e.where&where != 0 && !listed[strings.Join(e.b.Keys(), " ")] {
				t.Errorf("scope %b: %q (%s) applies but is not in the full help", where, e.b.Keys(), e.b.Help().Desc)
			}
		}
	}
	// The keys the issue found missing are listed on the list screen.
	m := newTestModel(t, 80, 40, incidentPath)
	press(t, m, "?")
	s := screen(m)
	for _, want := range []string{"f      filter", "s      sort by the next key", "S      reverse the sort", "F      follow newest", "(q, esc or ? closes this help"} {
		if !strings.Contains(s, want) {
			t.Errorf("the list's help lacks %q:\n%s", want, s)
		}
	}
}

// startFlow runs the TUI on paths in a teatest program of w×h cells.
func startFlow(t *testing.T, w, h int, o Options) (*teatest.TestModel, *recorder) {
	t.Helper()
	m, err := newModel(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.close)
	r := &recorder{m: m}
	tm := teatest.NewTestModel(t, r, teatest.WithInitialTermSize(w, h),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.Ascii)))
	return tm, r
}

// sendKeys sends the key presses named, in order.
func sendKeys(tm *teatest.TestModel, keys ...string) {
	for _, k := range keys {
		tm.Send(keyMsg(k))
	}
}

// TestHelpClosesWithoutQuitting toggles an engine switch, opens the help
// and closes it with q, esc and ?: each closes the help and nothing else
// (the replayed engine stays), other keys leave it up, and only a q with
// the help closed quits, with the toggle still set.
func TestHelpClosesWithoutQuitting(t *testing.T) {
	t.Parallel()
	tm, r := startFlow(t, 120, 40, Options{Paths: []string{incidentPath}})
	waitScreen(t, tm, r, "the list", contains("▸ 1 "))
	tm.Send(keyMsg("enter"))
	waitScreen(t, tm, r, "the loaded exchange", contains("upstream vs client  1 hunk "))
	sendKeys(tm, "e", "j", "j")
	waitScreen(t, tm, r, "the holdback switch", contains("▌ [ ] holdback"))
	tm.Send(keyMsg("space"))
	waitScreen(t, tm, r, "the replay", contains("changed: holdback=on"))
	tm.Send(keyMsg("esc"))
	waitScreen(t, tm, r, "the replayed diff", contains("replayed obsidian-xml holdback=on"))
	for _, closer := range []string{"q", "esc", "?"} {
		tm.Send(keyMsg("?"))
		waitScreen(t, tm, r, "the help", contains("(q, esc or ? closes this help"))
		tm.Send(keyMsg("x")) // not a closing key: the help stays
		tm.Send(keyMsg(closer))
		waitScreen(t, tm, r, "the detail again after "+closer, func(s string) bool {
			return !strings.Contains(s, "closes this help") && strings.Contains(s, "replayed obsidian-xml holdback=on")
		})
	}
	tm.Send(keyMsg("q"))
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*recorder).m
	if final.det == nil || final.det.engine.Switches["holdback"] != "on" {
		t.Errorf("the toggle was lost: %+v", final.det)
	}
}

// TestFilterAppliesAsYouType types a filter: the list narrows with each
// key, before enter; esc puts the previous filter back, enter keeps it.
func TestFilterAppliesAsYouType(t *testing.T) {
	t.Parallel()
	tm, r := startFlow(t, 120, 30, Options{Paths: []string{incidentPath}})
	waitScreen(t, tm, r, "the list", contains("4 exchanges"))
	tm.Send(keyMsg("f"))
	sendKeys(tm, strings.Split("status=429", "")...)
	waitScreen(t, tm, r, "the filtered list before enter", func(s string) bool {
		return strings.Contains(s, "1 of 4 exchanges") && strings.Contains(s, "filter: status=429")
	})
	tm.Send(keyMsg("esc"))
	waitScreen(t, tm, r, "the list unfiltered after esc", func(s string) bool {
		return strings.Contains(s, "4 exchanges ·") && !strings.Contains(s, "of 4")
	})
	tm.Send(keyMsg("f"))
	sendKeys(tm, strings.Split("status>=400", "")...)
	tm.Send(keyMsg("enter"))
	waitScreen(t, tm, r, "the filter kept after enter", contains("1 of 4 exchanges · engine obsidian-xml · sort ex · filter status>=400"))
	tm.Send(keyMsg("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}

// TestSearchCountsMatches types a search: the footer counts the matching
// rows as it is typed, or says there is none; enter goes to the first and
// says which match of how many it is.
func TestSearchCountsMatches(t *testing.T) {
	t.Parallel()
	tm, r := startFlow(t, 120, 30, Options{Paths: []string{incidentPath}})
	// The rows' findings are searched too: wait until every row has its.
	waitScreen(t, tm, r, "the list with its findings", contains("http.status"))
	tm.Send(keyMsg("/"))
	sendKeys(tm, "h", "t", "t", "p", ".", "s")
	waitScreen(t, tm, r, "one match", contains("/http.s█  1 match"))
	tm.Send(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	sendKeys(tm, "x", "m", "l")
	waitScreen(t, tm, r, "two matches", contains("/xml█  2 matches"))
	tm.Send(keyMsg("z"))
	waitScreen(t, tm, r, "no match", contains("/xmlz█  no match"))
	tm.Send(keyMsg("backspace"))
	tm.Send(keyMsg("enter"))
	waitScreen(t, tm, r, "the first match", contains(`match 1 of 2 for "xml"`))
	tm.Send(keyMsg("n"))
	waitScreen(t, tm, r, "the second match", contains(`match 2 of 2 for "xml"`))
	tm.Send(keyMsg("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}

// TestListUsesTheWidth checks the list's columns: at 160 columns two
// captures named by their start time are shown whole and the endpoint is
// not cut; at 80 they are cut to where they differ, so they stay apart;
// the top finding's id has a column.
func TestListUsesTheWidth(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b, err := os.ReadFile(incidentPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"seam-20261122T093428Z.ndjson", "seam-20261122T093512Z.ndjson"} {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	row := func(s, prefix string) string {
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(strings.TrimLeft(l, "▸ "), prefix) {
				return l
			}
		}
		t.Fatalf("no row starts with %q:\n%s", prefix, s)
		return ""
	}
	wide := screen(newTestModel(t, 160, 14, dir))
	for _, name := range []string{"seam-20261122T093428Z 1 ", "seam-20261122T093512Z 1 "} {
		r := row(wide, name)
		if !strings.Contains(r, "POST /v1/chat/completions ") || !regexp.MustCompile(`E\d (W\d )?I\d +xml\.unclosed-closer`).MatchString(r) {
			t.Errorf("160 columns: row %q", r)
		}
	}
	if !strings.Contains(wide, "top finding") {
		t.Errorf("160 columns: no top finding column:\n%s", wide)
	}
	narrow := screen(newTestModel(t, 80, 14, dir))
	a, b2 := row(narrow, "…T093428Z 1 "), row(narrow, "…T093512Z 1 ")
	for _, r := range []string{a, b2} {
		if len([]rune(r)) > 80 || !regexp.MustCompile(`E\d (W\d )?I\d +xml\.`).MatchString(r) {
			t.Errorf("80 columns: row %q", r)
		}
	}
}

// TestBannerShowsWhereClientsGo checks the line seam record --tui gives the
// list: under the title, with the rows below it where a click finds them.
func TestBannerShowsWhereClientsGo(t *testing.T) {
	t.Parallel()
	m, err := newModel(context.Background(), Options{Paths: []string{incidentPath}, Banner: "recording: point clients at http://127.0.0.1:8080 (→ https://api.openai.com) · q stops"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.close)
	m.Update(resize(100, 20))
	drive(t, m, m.Init())
	lines := strings.Split(screen(m), "\n")
	if !strings.HasPrefix(lines[1], "recording: point clients at http://127.0.0.1:8080 (→ https://api.openai.com)") {
		t.Errorf("line 2 is %q, want the banner", lines[1])
	}
	if !strings.HasPrefix(lines[3], "▸ 1 ") || !strings.HasPrefix(lines[5], "  3 ") {
		t.Errorf("rows:\n%s", strings.Join(lines[:7], "\n"))
	}
	m.Update(tea.MouseClickMsg(tea.Mouse{X: 5, Y: 5, Button: tea.MouseLeft}))
	if m.list.cursor != 2 {
		t.Errorf("a click on the third row put the cursor on row %d", m.list.cursor)
	}
}
