package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/seam-dev/seam/visible/visibletest"
)

// TestHostileCapture opens a capture carrying an OSC 52 clipboard write,
// CSI sequences (clear screen, conceal), bidi controls, NUL and C1
// controls in every field, and draws every screen of every exchange: the
// list, each tab, the timeline's events, the raw bytes of an event, the
// engine panel and the help. Nothing a terminal would act on reaches the
// frame but the styling's SGR codes, even with the frame's last check
// turned off, and the hostile text still shows, as markers.
func TestHostileCapture(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hostile\x1b]0;title\x07\u202e.ndjson")
	writeCapture(t, path, visibletest.Capture)
	for _, guarded := range []bool{false, true} {
		m := newTestModel(t, 140, 40, path)
		m.unguarded = !guarded
		seen := map[string]bool{}
		check := func(what string) {
			t.Helper()
			frame := m.View().Content
			if err := visibletest.Check(frame); err != nil {
				t.Errorf("guarded %v, %s: %v", guarded, what, err)
			}
			if strings.Contains(frame, "\x1b[8m") {
				t.Errorf("guarded %v, %s: the capture's conceal code reaches the frame", guarded, what)
			}
			plain := screen(m)
			for _, want := range []string{"␛]52;c;SGFjaw==␇", "⟨U+202E⟩"} {
				if strings.Contains(plain, want) {
					seen[want] = true
				}
			}
		}
		check("list")
		for ex := range 3 {
			press(t, m, "enter")
			check("detail")
			for _, tab := range []string{"1", "2", "3", "4", "5"} {
				press(t, m, tab)
				check("tab " + tab)
			}
			press(t, m, "2", "s", "s") // the timeline's events
			check("timeline events")
			press(t, m, "enter") // the raw bytes of the event
			check("raw event")
			press(t, m, "esc", "e")
			check("engine panel")
			press(t, m, "esc", "?")
			check("help")
			press(t, m, "esc", "esc", "esc")
			for range ex + 1 {
				press(t, m, "down")
			}
		}
		if len(seen) != 2 {
			t.Errorf("guarded %v: the hostile text never showed as markers (saw %v)", guarded, seen)
		}
	}
}

// TestHostileModelFromStream: a model named only by the stream (the
// request body names none) is drawn with markers in the list and the
// detail title, like one the request names: the capture's SGR conceal
// code, which the frame's last check lets through as styling, never
// reaches the frame.
func TestHostileModelFromStream(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "model.ndjson")
	lines := `{"type":"capture","v":1,"seam":"0.1.0","id":"x","started":"2026-08-22T09:30:00Z","upstream":"https://api.openai.com","engine":{"profile":"passthrough"}}
{"type":"request","ex":1,"t":1000,"method":"POST","url":"/v1/chat/completions","headers":{},"body":"{\"stream\":true,\"messages\":[]}"}
{"type":"response","ex":1,"side":"upstream","t":2000,"status":200,"headers":{"content-type":["text/event-stream"]}}
{"type":"chunk","ex":1,"side":"upstream","t":3000,"off":0,"data":"data: {\"id\":\"c\",\"model\":\"gpt\\u001b[8m-hidden\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n"}
{"type":"end","ex":1,"side":"upstream","t":5000,"outcome":"complete","bytes":124}
`
	writeCapture(t, path, []byte(lines))
	m := newTestModel(t, 140, 30, path)
	for _, where := range []string{"list", "detail"} {
		if where == "detail" {
			press(t, m, "enter")
		}
		frame := m.View().Content
		if strings.Contains(frame, "\x1b[8m") {
			t.Errorf("%s: the stream's conceal code reaches the frame", where)
		}
		if !strings.Contains(screen(m), "gpt␛[8m-hidden") {
			t.Errorf("%s: the model is not drawn with its marker:\n%s", where, screen(m))
		}
	}
}

// TestLongURL: a URL of a mebibyte is shown cut to the screen, with an
// ellipsis, in the list and in the detail's title.
func TestLongURL(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, 140, 40, writeLongURLCapture(t))
	if c := m.listColumns(); c.endpoint > m.w {
		t.Errorf("the endpoint column is %d cells wide on a screen of %d", c.endpoint, m.w)
	}
	row := strings.Split(screen(m), "\n")[2]
	if !strings.Contains(row, "GET /v1/models?q=aaaa") || !strings.Contains(row, "a… ") {
		t.Errorf("the list row does not show the URL cut: %q", row)
	}
	press(t, m, "enter")
	title := strings.Split(screen(m), "\n")[0]
	if !strings.Contains(title, "GET /v1/models?q=aaaa") || !strings.HasSuffix(title, "a…") {
		t.Errorf("the detail title does not show the URL cut: %q", title)
	}
}

// TestLongControlText: a text that is one line of control characters is
// shown on the Diff tab as a line of markers cut to the screen.
func TestLongControlText(t *testing.T) {
	t.Parallel()
	m := newTestModel(t, 100, 30, writeControlTextCapture(t))
	press(t, m, "enter")
	for _, l := range strings.Split(screen(m), "\n") {
		if strings.Contains(l, "␇␇␇") {
			if !strings.HasSuffix(strings.TrimRight(l, " "), "␇…") || ansi.StringWidth(l) > m.w {
				t.Errorf("the line of markers is not cut to the screen: %q", l)
			}
			return
		}
	}
	t.Errorf("no line of markers on the Diff tab:\n%s", screen(m))
}

// TestTimelineCutsOnCharacters: on a screen wide enough to show it, a
// timeline row of a long text is cut where a character starts, never
// inside one (which would show a byte marker the text does not hold).
func TestTimelineCutsOnCharacters(t *testing.T) {
	t.Parallel()
	for _, lead := range []string{"", "a", "ab"} { // wherever a byte count falls
		m := newTestModel(t, 600, 20, writeTextCapture(t, lead+strings.Repeat("漢", 1000)))
		press(t, m, "enter", "2")
		s := screen(m)
		if !strings.Contains(s, "漢漢漢") || strings.Contains(s, `⟨\x`) {
			t.Errorf("the timeline shows %q… cut inside a character:\n%s", lead+"漢", s)
		}
	}
}
