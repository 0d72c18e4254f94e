package tui

import (
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// newTestModel opens paths at a fixed size and runs every command the
// model issues until it is idle, so the list is indexed and badged.
func newTestModel(t testing.TB, w, h int, paths ...string) *model {
	t.Helper()
	return openModel(t, w, h, Options{Paths: paths})
}

// openModel opens what o names at w×h cells and runs every command the
// model issues until it is idle. Followed sources are read again only when
// the test sends a tick (see tick).
func openModel(t testing.TB, w, h int, o Options) *model {
	t.Helper()
	m, err := newModel(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.close)
	m.tick = 0
	m.Update(resize(w, h))
	drive(t, m, m.Init())
	return m
}

// writeCapture writes a capture file for a test.
func writeCapture(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// drive runs cmd and every command that follows from it, synchronously,
// feeding each message to the model. Ticks and terminal queries are skipped.
func drive(t testing.TB, m *model, cmd tea.Cmd) {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 100000 {
			t.Fatal("the model never went idle")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		switch msg := msg.(type) {
		case nil, tickMsg:
			continue
		case tea.BatchMsg:
			queue = append(queue, msg...)
			continue
		}
		// Sequences and terminal requests are internal to Bubble Tea: run
		// a sequence's commands in order, skip the rest.
		if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().Elem() == reflect.TypeOf(tea.Cmd(nil)) {
			for i := 0; i < v.Len(); i++ {
				queue = append(queue, v.Index(i).Interface().(tea.Cmd))
			}
			continue
		}
		switch msg.(type) {
		case scanMsg, streamMsg, dirMsg, openedMsg, badgeMsg, loadedMsg, replayMsg, tea.KeyPressMsg, tea.WindowSizeMsg:
		default:
			continue
		}
		_, next := m.Update(msg)
		queue = append(queue, next)
	}
}

// keyMsg builds the key press a terminal sends for a key name.
func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// press sends keys one by one, driving the model to idle after each.
func press(t testing.TB, m *model, keys ...string) {
	t.Helper()
	for _, k := range keys {
		_, cmd := m.Update(keyMsg(k))
		drive(t, m, cmd)
	}
}

// typeText sends each rune of s as a key press.
func typeText(t testing.TB, m *model, s string) {
	t.Helper()
	for _, r := range s {
		_, cmd := m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		drive(t, m, cmd)
	}
}

// screen is the model's view without styling.
func screen(m *model) string { return ansi.Strip(m.View().Content) }

// resize is the message a terminal of w×h cells sends.
func resize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

// sgrParams returns the attribute codes a styled line sets, skipping the
// arguments of extended colours (38;5;n and 38;2;r;g;b).
func sgrParams(l string) []int {
	var out []int
	for _, seq := range strings.Split(l, "\x1b[")[1:] {
		end := strings.IndexByte(seq, 'm')
		if end < 0 || strings.ContainsAny(seq[:end], "?<>=") {
			continue
		}
		ps := strings.Split(seq[:end], ";")
		for i := 0; i < len(ps); i++ {
			n, err := strconv.Atoi(ps[i])
			if err != nil {
				continue
			}
			out = append(out, n)
			if (n == 38 || n == 48 || n == 58) && i+1 < len(ps) {
				switch ps[i+1] {
				case "5":
					i += 2
				case "2":
					i += 4
				}
			}
		}
	}
	return out
}

// hasSGR reports whether a styled line sets the SGR attribute code (4
// underline, 9 strikethrough) in some escape sequence.
func hasSGR(l string, code int) bool { return slices.Contains(sgrParams(l), code) }

// hasColour reports whether a styled line sets a foreground or background
// colour.
func hasColour(l string) bool {
	return slices.ContainsFunc(sgrParams(l), func(n int) bool {
		return n >= 30 && n <= 38 || n >= 40 && n <= 48 || n >= 90 && n <= 97 || n >= 100 && n <= 107
	})
}
