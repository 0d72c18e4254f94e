package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/tape"
)

func TestQuitAndInterrupt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		key  tea.KeyPressMsg
		want tea.Msg
	}{
		{"q quits", keyMsg("q"), tea.QuitMsg{}},
		{"ctrl+c interrupts", keyMsg("ctrl+c"), tea.InterruptMsg{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, keys := range [][]string{nil, {"enter"}, {"enter", "e"}, {"enter", "?"}, {"/"}} {
				m := newTestModel(t, 80, 24, incidentPath)
				press(t, m, keys...)
				_, cmd := m.Update(tc.key)
				if tc.name == "q quits" && len(keys) > 0 && keys[0] == "/" {
					// q is text in the search line.
					if cmd != nil || m.inputBuf != "q" {
						t.Errorf("q in the search line: cmd %v, input %q", cmd, m.inputBuf)
					}
					continue
				}
				if tc.name == "q quits" && len(keys) > 0 && keys[len(keys)-1] == "?" {
					// q closes the help; the next q quits.
					if cmd != nil || m.showHelp {
						t.Errorf("q in the help: cmd %v, help still up %v", cmd, m.showHelp)
					}
					_, cmd = m.Update(tc.key)
				}
				if cmd == nil || cmd() != tc.want {
					t.Errorf("after %v: %s did not give %T", keys, tc.key, tc.want)
				}
			}
		})
	}
}

// TestRunInterrupted runs the real program: ctrl-c typed on its input
// makes Run return ErrInterrupted (which seam maps to exit status 130).
func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	err := Run(context.Background(), Options{Paths: []string{incidentPath}, In: strings.NewReader("\x03"), Out: &out, Env: []string{"TERM=xterm-256color"}, NoColor: true})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("Run = %v, want ErrInterrupted", err)
	}
}

func TestRunMissingFile(t *testing.T) {
	t.Parallel()
	err := Run(context.Background(), Options{Paths: []string{filepath.Join(t.TempDir(), "nope.ndjson")}, In: strings.NewReader(""), Out: &bytes.Buffer{}})
	if err == nil || !strings.Contains(err.Error(), "open capture") {
		t.Fatalf("Run = %v", err)
	}
}

// TestFilterPutsCursorOnFirstRow: a filter typed puts the cursor on the
// first row it lets through, even when the row under the cursor passes it
// too (it is a new list, read from the top).
func TestFilterPutsCursorOnFirstRow(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, 100, 30, incidentPath)
	press(t, m, "down") // exchange 2, which sev:error keeps
	press(t, m, "f")
	// Pasted in one piece, so that no prefix typed moves the cursor first.
	_, cmd := m.Update(tea.KeyPressMsg{Code: 's', Text: "sev:error"})
	drive(t, m, cmd)
	if m.list.filter != "sev:error" {
		t.Fatalf("filter %q", m.list.filter)
	}
	if s, ok := m.selected(); !ok || s.ex != 1 {
		t.Fatalf("while typing, the cursor is on %+v, want exchange 1", s)
	}
	press(t, m, "enter")
	if s, ok := m.selected(); !ok || s.ex != 1 {
		t.Errorf("after enter, the cursor is on %+v, want exchange 1", s)
	}
}

func TestListFilterSortSearch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		filter string
		want   []int
	}{
		{"status", "status:429", []int{4}},
		{"detector", "detector:unclosed-closer", []int{1, 2}},
		// Exchange 3 only carries a call as XML, unchanged: info, not warn.
		{"severity and status", "sev:warn status:200", []int{1, 2}},
		{"severity", "sev:error", []int{1, 2, 4}},
		{"model and text", "model:codex 429", []int{4}},
		{"endpoint", "ep:/v1/responses", nil},
		{"none", "", []int{1, 2, 3, 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newTestModel(t, 100, 30, incidentPath)
			press(t, m, "f")
			typeText(t, m, tc.filter)
			press(t, m, "enter")
			var got []int
			for _, r := range m.list.rows {
				got = append(got, m.sums[r].ex)
			}
			if !equalInts(got, tc.want) {
				t.Errorf("filter %q shows %v, want %v", tc.filter, got, tc.want)
			}
		})
	}
	t.Run("sort by duration", func(t *testing.T) {
		t.Parallel()
		m := newTestModel(t, 100, 30, incidentPath)
		press(t, m, "s") // duration, longest first
		if ex := m.sums[m.list.rows[0]].ex; ex != 1 || m.list.sortBy != sortDur {
			t.Errorf("first row ex %d sorted by %s", ex, sortNames[m.list.sortBy])
		}
		press(t, m, "S")
		if ex := m.sums[m.list.rows[0]].ex; ex != 3 {
			t.Errorf("reversed: first row ex %d, want the shortest (3)", ex)
		}
	})
	t.Run("search n N", func(t *testing.T) {
		t.Parallel()
		m := newTestModel(t, 100, 30, incidentPath)
		press(t, m, "/")
		typeText(t, m, "429")
		press(t, m, "enter")
		if s, _ := m.selected(); s.ex != 4 {
			t.Errorf("search landed on ex %d", s.ex)
		}
		press(t, m, "N")
		if s, _ := m.selected(); s.ex != 4 {
			t.Errorf("N with one match moved to ex %d", s.ex)
		}
	})
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestJumps checks that enter on a finding, and on a diff hunk, lands on the
// pointed event in the timeline, and that enter there opens it in Raw.
func TestJumps(t *testing.T) {
	t.Parallel()
	for _, keys := range [][]string{{"enter", "3", "enter"}, {"enter", "n", "enter"}} {
		m := newTestModel(t, 120, 35, incidentPath)
		press(t, m, keys...)
		d := m.det
		if d.tab != tabTimeline || !d.tlEvents {
			t.Fatalf("%v: tab %s, events %v", keys, tabNames[d.tab], d.tlEvents)
		}
		r := d.view().rows[m.doc(tabTimeline).line(d.cur[tabTimeline]).row]
		if r.side != tape.Client || r.idx != 282 || !r.event {
			t.Fatalf("%v: landed on %+v, want client event 282", keys, r)
		}
		if !strings.Contains(screen(m), "▌ ! cl e282") {
			t.Errorf("%v: the pointed row is not selected and flagged:\n%s", keys, screen(m))
		}
		press(t, m, "enter")
		if d.tab != tabRaw || !strings.Contains(screen(m), "client event 282") {
			t.Errorf("%v: enter in the timeline did not open the event in Raw:\n%s", keys, screen(m))
		}
	}
}

func TestTimelineToggles(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, 120, 35, incidentPath)
	press(t, m, "enter", "2")
	all := m.doc(tabTimeline).len()
	press(t, m, "s")
	up := m.doc(tabTimeline).len()
	press(t, m, "s")
	cl := m.doc(tabTimeline).len()
	press(t, m, "s", "c")
	ev := m.doc(tabTimeline).len()
	if all != 285*2 || up != 285 || cl != 285 || ev != 285*2 {
		t.Errorf("rows: both %d, upstream %d, client %d, events %d", all, up, cl, ev)
	}
	if !strings.Contains(screen(m), "up e0") {
		t.Errorf("event rows not shown:\n%s", screen(m))
	}
	// n goes to the next row a finding points at: client event 282.
	press(t, m, "n")
	if !strings.Contains(screen(m), "▌ ! cl e282") {
		t.Errorf("n did not land on the flagged event:\n%s", screen(m))
	}
}

func TestDiffSearchAndCopy(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, 120, 35, incidentPath)
	press(t, m, "enter", "/")
	typeText(t, m, "use_tool<use")
	press(t, m, "enter")
	d := m.det
	first := d.cur[tabDiff]
	if l := plainOf(m.doc(tabDiff).line(first).runs); !strings.Contains(l, "</use_tool<use_tool>") {
		t.Fatalf("search landed on %q", l)
	}
	press(t, m, "n")
	if d.cur[tabDiff] == first {
		t.Errorf("n did not move to the next match")
	}
	press(t, m, "N")
	if d.cur[tabDiff] != first {
		t.Errorf("N did not come back: %d, want %d", d.cur[tabDiff], first)
	}
	// Copy the current hunk: OSC 52 via tea.SetClipboard.
	press(t, m, "esc", "n")
	_, cmd := m.Update(keyMsg("y"))
	if cmd == nil {
		t.Fatal("y gave no command")
	}
	// Bubble Tea's clipboard message is an unexported string type holding
	// the text it writes with OSC 52.
	msg := cmd()
	v := reflect.ValueOf(msg)
	if !strings.Contains(strings.ToLower(fmt.Sprintf("%T", msg)), "clipboard") || v.Kind() != reflect.String {
		t.Fatalf("y gave %T, want a clipboard message", msg)
	}
	if got := v.String(); !strings.Contains(got, "+ </use_tool<use_tool>\n") || !strings.HasPrefix(got, "@@ hunk 1/1") {
		t.Errorf("copied %q, want the hunk holding </use_tool<use_tool>", got)
	}
	if !strings.Contains(m.status, "copied") {
		t.Errorf("status %q", m.status)
	}
}

func TestMouseAndResize(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, 100, 30, incidentPath)
	// Click the third row (y=2 is the first row), then click it again to open.
	m.Update(tea.MouseClickMsg{X: 5, Y: 4, Button: tea.MouseLeft})
	if s, _ := m.selected(); s.ex != 3 {
		t.Fatalf("click selected ex %d", s.ex)
	}
	_, cmd := m.Update(tea.MouseClickMsg{X: 5, Y: 4, Button: tea.MouseLeft})
	drive(t, m, cmd)
	if m.det == nil || m.det.key.ex != 3 {
		t.Fatal("second click did not open ex 3")
	}
	// Click the Findings tab label.
	m.Update(tea.MouseClickMsg{X: 22, Y: 1, Button: tea.MouseLeft})
	if m.det.tab != tabFindings {
		t.Errorf("tab click gave %s", tabNames[m.det.tab])
	}
	press(t, m, "2")
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if m.det.cur[tabTimeline] != 3 {
		t.Errorf("wheel moved to %d", m.det.cur[tabTimeline])
	}
	// Resize to the minimum: every line fits.
	m.Update(resize(80, 24))
	lines := strings.Split(screen(m), "\n")
	if len(lines) != 24 {
		t.Errorf("%d lines at 80×24", len(lines))
	}
	for _, l := range lines {
		if w := len([]rune(l)); w > 80 {
			t.Errorf("line wider than 80: %q", l)
		}
	}
}

// TestNoColorKeepsMeaning checks the styled diff: changed bytes carry
// underline (added) and strikethrough (deleted), and with NO_COLOR (the
// Ascii profile) those and the +/- gutters remain while colours go.
func TestNoColorKeepsMeaning(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, 120, 35, incidentPath)
	press(t, m, "enter", "n")
	// The incident's deleted line "</use_tool>" is a prefix of the added
	// one, so it has no deleted bytes to strike; a pair that replaces bytes
	// is painted with the same styles.
	del := inspect.DiffLine{Op: "-", Text: "the tail was lost"}
	add := inspect.DiffLine{Op: "+", Text: "the tail was kept"}
	pairLines := paint(m.diffRuns(del, &add), 120, "", m.st.match) + "\n" +
		paint(m.diffRuns(add, &del), 120, "", m.st.match)
	frame := m.View().Content + "\n" + pairLines
	for _, tc := range []struct {
		name    string
		profile colorprofile.Profile
	}{
		{"colour", colorprofile.TrueColor},
		{"NO_COLOR", colorprofile.Ascii},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			w := &colorprofile.Writer{Forward: &buf, Profile: tc.profile}
			if _, err := w.WriteString(frame); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			var underlined, struck, minus, plus bool
			for _, l := range strings.Split(out, "\n") {
				plain := ansi.Strip(l)
				if strings.Contains(plain, "+ </use_tool<use_tool>") && hasSGR(l, 4) {
					underlined = true
				}
				if strings.Contains(plain, "- </use_tool>") {
					minus = true
				}
				if strings.HasPrefix(plain, "+ the tail was kept") && hasSGR(l, 4) {
					plus = true
				}
				if strings.HasPrefix(plain, "- the tail was lost") && hasSGR(l, 9) {
					struck = true
				}
				if tc.profile == colorprofile.Ascii && hasColour(l) {
					t.Errorf("colour under NO_COLOR: %q", l)
				}
			}
			if !underlined || !minus || !plus || !struck {
				t.Errorf("added bytes underlined %v, \"- \" gutter kept %v, pair: added underlined %v, deleted struck through %v",
					underlined, minus, plus, struck)
			}
		})
	}
}

// TestInvisibles shows \r, tabs, trailing spaces, zero-width characters and
// invalid UTF-8.
func TestInvisibles(t *testing.T) {
	t.Parallel()
	got := escapeInline("a\tb\r\n\u200bc \xff \x1b[2J\u202e→  ")
	want := "a⇥b␍↵⟨U+200B⟩c ⟨\\xFF⟩ ␛[2J⟨U+202E⟩→··"
	if got != want {
		t.Errorf("escapeInline = %q, want %q", got, want)
	}
}

// TestManyCaptures shows every exchange of several captures (a directory)
// with the capture named in each row.
func TestManyCaptures(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := filepath.Join(dir, "a.ndjson")
	b := filepath.Join(dir, "b.ndjson")
	writeCapture(t, a, synthCapture(2, 3, false))
	writeCapture(t, b, synthCapture(3, 3, true))
	m := newTestModel(t, 120, 30, a, b)
	if len(m.list.rows) != 5 {
		t.Fatalf("%d rows, want 5", len(m.list.rows))
	}
	s := screen(m)
	if !strings.Contains(s, "2 captures in") {
		t.Errorf("title does not count the captures:\n%s", s)
	}
	// Each row names its capture in the first column, then the exchange.
	rows := map[string]int{}
	for _, l := range strings.Split(s, "\n") {
		f := strings.Fields(strings.TrimPrefix(l, "▸"))
		if len(f) >= 2 && (f[0] == "a" || f[0] == "b") {
			if _, err := strconv.Atoi(f[1]); err == nil {
				rows[f[0]]++
			}
		}
	}
	if rows["a"] != 2 || rows["b"] != 3 {
		t.Errorf("rows by capture %v, want a:2 b:3:\n%s", rows, s)
	}
	press(t, m, "f")
	typeText(t, m, "capture:b")
	press(t, m, "enter")
	if len(m.list.rows) != 3 {
		t.Errorf("capture filter: %d rows", len(m.list.rows))
	}
}

// TestLightBackground rebuilds the styles when the terminal reports a
// light background; the text is the same, the colours differ.
func TestLightBackground(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, 100, 30, incidentPath)
	dark := m.View().Content
	m.Update(tea.BackgroundColorMsg{Color: color.White})
	if m.isDark {
		t.Fatal("a white background was taken for a dark one")
	}
	light := m.View().Content
	if light == dark {
		t.Error("the light-background frame is styled like the dark one")
	}
	if ansi.Strip(light) != ansi.Strip(dark) {
		t.Error("the light-background frame shows other text")
	}
}

// TestNotACapture: a file that is not a capture this seam reads (text, a
// first line that is not a header, a format version it refuses) is
// refused with an error before anything is listed; followed, its error
// shows and none of its exchanges is listed.
func TestNotACapture(t *testing.T) {
	t.Parallel()
	exchange := `{"type":"request","ex":1,"t":1,"method":"POST","url":"/v1/chat/completions","headers":{}}` + "\n"
	for _, tc := range []struct{ name, data, want string }{
		{"text", "hello\nworld\n", "malformed line"},
		{"empty", "", "empty capture"},
		{"chunk first", exchange, "want a \"capture\" header"},
		{"newer version", `{"type":"capture","v":99,"seam":"x","id":"x","started":"2026-11-22T09:00:00Z","upstream":"u","engine":{"profile":"passthrough"}}` + "\n" + exchange, "capture format v99 is newer than this seam supports"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "x.ndjson")
			if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{path, dir} {
				m, err := newModel(context.Background(), Options{Paths: []string{p}})
				if err == nil {
					m.close()
					t.Fatalf("%s: opened", p)
				}
				if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "x.ndjson") {
					t.Errorf("%s: error %q, want one naming x.ndjson and %q", p, err, tc.want)
				}
			}
			if tc.data == "" {
				return // followed, an empty file is one being written
			}
			m, err := newModel(context.Background(), Options{Paths: []string{path}, Follow: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(m.close)
			m.Update(resize(100, 30))
			drive(t, m, m.Init())
			if len(m.sums) > 0 {
				t.Errorf("followed, %d exchanges of a refused capture are listed", len(m.sums))
			}
			if !m.statusErr || !strings.Contains(m.status, tc.want) {
				t.Errorf("followed, the status line says %q, want an error with %q", m.status, tc.want)
			}
		})
	}
}

// TestFilterBeforeBadges sets the filter before the background badges
// arrive: terms that read badges are applied as each badge comes in, and
// the others are not disturbed by them.
func TestFilterBeforeBadges(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		filter string
		sortBy int
		badges bool
		want   []int
	}{
		{"detector:unclosed-closer", sortEx, true, []int{1, 2}},
		{"sev:error", sortEx, true, []int{1, 2, 4}},
		{"status:429", sortEx, false, []int{4}},
		{"ep:/v1/chat", sortEx, false, []int{1, 2, 3, 4}},
		{"", sortFindings, true, []int{2, 1, 4, 3}},
	} {
		t.Run(tc.filter+"/"+sortNames[tc.sortBy], func(t *testing.T) {
			t.Parallel()
			m, err := newModel(context.Background(), Options{Paths: []string{incidentPath}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(m.close)
			m.list.sortBy = tc.sortBy
			if err := m.setFilter(tc.filter); err != nil {
				t.Fatal(err)
			}
			if got := m.list.usesBadges(); got != tc.badges {
				t.Errorf("usesBadges = %v, want %v", got, tc.badges)
			}
			m.Update(resize(100, 30))
			drive(t, m, m.Init())
			var got []int
			for _, r := range m.list.rows {
				got = append(got, m.sums[r].ex)
			}
			if !equalInts(got, tc.want) {
				t.Errorf("rows %v, want %v", got, tc.want)
			}
		})
	}
}

// TestEngineNumericSwitch raises a numeric switch with + and lowers it
// with -, replaying each time, and never below zero.
func TestEngineNumericSwitch(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, 140, 40, incidentPath)
	press(t, m, "enter", "e", "j", "j", "j", "j")
	for _, step := range []struct {
		key  string
		want string
	}{{"+", "1"}, {"+", "2"}, {"-", "1"}, {"-", "0"}, {"-", "0"}} {
		press(t, m, step.key)
		if got := m.det.engine.Switches["stop-after-tools"]; got != step.want {
			t.Fatalf("after %s: stop-after-tools=%s, want %s", step.key, got, step.want)
		}
	}
}
