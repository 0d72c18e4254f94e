package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
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

func TestListFilterSortSearch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		filter string
		want   []int
	}{
		{"status", "status:429", []int{4}},
		{"detector", "detector:unclosed-closer", []int{1, 2}},
		{"severity and status", "sev:warn status:200", []int{1, 2, 3}},
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
	if msg := cmd(); !strings.Contains(strings.ToLower(typeName(msg)), "clipboard") {
		t.Errorf("y gave %T, want a clipboard message", msg)
	}
	if !strings.Contains(m.status, "copied") {
		t.Errorf("status %q", m.status)
	}
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }

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
	m.Update(tickSize(80, 24))
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
// underline (added) and strikethrough (deleted), which survive NO_COLOR.
func TestNoColorKeepsMeaning(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, 120, 35, incidentPath)
	press(t, m, "enter", "n")
	v := m.View().Content
	if !strings.Contains(v, "\x1b[") {
		t.Fatal("no styling at all")
	}
	var add, del bool
	for _, l := range strings.Split(v, "\n") {
		plain := screenLine(l)
		if strings.Contains(plain, "+ </use_tool<use_tool>") && hasSGR(l, "4") {
			add = true
		}
		if strings.Contains(plain, "- </use_tool>") {
			del = true
		}
	}
	if !add || !del {
		t.Errorf("added bytes underlined %v, deleted line present %v", add, del)
	}
}

// TestInvisibles shows \r, tabs, trailing spaces, zero-width characters and
// invalid UTF-8.
func TestInvisibles(t *testing.T) {
	t.Parallel()
	got := escapeInline("a\tb\r\n\u200bc \xff  ")
	want := "a→b␍↵⟨U+200B⟩c \\xFF··"
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
	if err := os.WriteFile(a, synthCapture(2, 3, false), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, synthCapture(3, 3, true), 0o644); err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, 120, 30, a, b)
	if len(m.list.rows) != 5 {
		t.Fatalf("%d rows, want 5", len(m.list.rows))
	}
	s := screen(m)
	if !strings.Contains(s, "2 captures in") || !strings.Contains(s, " b  ") && !strings.Contains(s, "b ") {
		t.Errorf("screen:\n%s", s)
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

// TestNotACapture says what is wrong with a file that is not a capture
// instead of showing an empty list.
func TestNotACapture(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, data, want string }{
		{"text", "hello\nworld\n", "not a readable capture"},
		{"newer version", `{"type":"capture","v":99,"seam":"x","id":"x","started":"2026-11-22T09:00:00Z","upstream":"u","engine":{"profile":"passthrough"}}` + "\n", "newer than this seam supports"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "x.ndjson")
			if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			m := newTestModel(t, 100, 30, path)
			if s := screen(m); !strings.Contains(s, tc.want) {
				t.Errorf("screen lacks %q:\n%s", tc.want, s)
			}
		})
	}
}
