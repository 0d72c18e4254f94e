package tui

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writeLargeCapture writes a synthetic capture of at least size bytes.
func writeLargeCapture(tb testing.TB, size int) string {
	tb.Helper()
	one := synthCapture(100, 200, true)
	n := max(size/len(one), 1) * 100
	data := synthCapture(n+100, 200, true)
	path := filepath.Join(tb.TempDir(), "large.ndjson")
	writeCapture(tb, path, data)
	return path
}

// openToList opens path and indexes it to its end without inspecting any
// exchange in the background, then renders the list. It returns the view.
func openToList(tb testing.TB, path string) string {
	m, err := newModel(context.Background(), Options{Paths: []string{path}})
	if err != nil {
		tb.Fatal(err)
	}
	defer m.close()
	m.badging = true // measure the open, not the background badges
	m.Update(resize(120, 35))
	drive(tb, m, m.Init())
	return screen(m)
}

// BenchmarkOpenLargeCapture measures how long a 100 MB capture takes to
// open to a rendered exchange list: the byte-scan index of every line plus
// the first frame. The file is in the page cache, as after a recording.
func BenchmarkOpenLargeCapture(b *testing.B) {
	path := writeLargeCapture(b, 100<<20)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	for b.Loop() {
		v := openToList(b, path)
		if !strings.Contains(v, "▸ 1 ") {
			b.Fatalf("no list rendered:\n%s", v)
		}
	}
}

// BenchmarkBadgeUpdates measures the model taking in the background
// findings badges of a 20 000-exchange capture, one badgeMsg each, as the
// list is open: with the default sort (rows are not re-filtered) and with a
// severity filter (every badge re-filters). The inspection itself runs in
// commands and is not measured.
func BenchmarkBadgeUpdates(b *testing.B) {
	path := filepath.Join(b.TempDir(), "many.ndjson")
	writeCapture(b, path, synthCapture(20000, 2, false))
	for _, filter := range []string{"", "sev:warn"} {
		b.Run("filter="+filter, func(b *testing.B) {
			m, err := newModel(context.Background(), Options{Paths: []string{path}})
			if err != nil {
				b.Fatal(err)
			}
			defer m.close()
			m.badging = true
			m.Update(resize(120, 35))
			drive(b, m, m.Init())
			if err := m.setFilter(filter); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				clear(m.badges)
				m.badging, m.badgeNext = false, 0
				for i := range m.sums {
					s := &m.sums[i]
					m.badging = true
					m.Update(badgeMsg{key: exKey{s.file, s.ex}, b: badge{rev: s.rev, counts: [3]int{0, 1, 0}, events: 2}})
				}
			}
			if len(m.list.rows) != len(m.sums) {
				b.Fatalf("%d rows of %d", len(m.list.rows), len(m.sums))
			}
		})
	}
}

// writeLongURLCapture writes a capture of one request whose URL is a
// mebibyte long, as a hostile or broken client may send.
func writeLongURLCapture(tb testing.TB) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "long.ndjson")
	lines := `{"type":"capture","v":1,"seam":"0.1.0","id":"x","started":"2026-08-22T09:30:00Z","upstream":"https://api.openai.com","engine":{"profile":"passthrough"}}
{"type":"request","ex":1,"t":1000,"method":"GET","url":"/v1/models?q=` + strings.Repeat("a", 1<<20) + `","headers":{},"body":""}
`
	writeCapture(tb, path, []byte(lines))
	return path
}

// writeControlTextCapture writes a capture of one streamed answer whose
// text is one line of 128 Ki BEL characters, each drawn as a marker.
func writeControlTextCapture(tb testing.TB) string {
	tb.Helper()
	return writeTextCapture(tb, strings.Repeat("\a", 1<<17))
}

// writeTextCapture writes a capture of one Chat Completions answer of
// text, streamed in one chunk.
func writeTextCapture(tb testing.TB, text string) string {
	tb.Helper()
	content, _ := json.Marshal(text)
	data := `data: {"choices":[{"index":0,"delta":{"content":` + string(content) + `}}]}` + "\n\ndata: [DONE]\n\n"
	q, _ := json.Marshal(data)
	path := filepath.Join(tb.TempDir(), "bells.ndjson")
	lines := `{"type":"capture","v":1,"seam":"0.1.0","id":"x","started":"2026-08-22T09:30:00Z","upstream":"https://api.openai.com","engine":{"profile":"passthrough"}}
{"type":"request","ex":1,"t":1000,"method":"POST","url":"/v1/chat/completions","headers":{},"body":"{\"stream\":true}"}
{"type":"response","ex":1,"side":"upstream","t":2000,"status":200,"headers":{"content-type":["text/event-stream"]}}
{"type":"chunk","ex":1,"side":"upstream","t":3000,"off":0,"data":` + string(q) + `}
{"type":"end","ex":1,"side":"upstream","t":5000,"outcome":"complete","bytes":` + strconv.Itoa(len(data)) + `}
`
	writeCapture(tb, path, []byte(lines))
	return path
}

// BenchmarkFrameLongLines measures drawing a frame of text from a capture
// that is far longer than a line: the list and the detail of an exchange
// whose URL is a mebibyte long, and the Diff tab of one whose text is a
// line of 128 Ki control characters. A frame costs what the screen shows,
// not what the capture holds.
func BenchmarkFrameLongLines(b *testing.B) {
	url, bells := writeLongURLCapture(b), writeControlTextCapture(b)
	for _, tc := range []struct{ name, path string }{{"url-list", url}, {"url-detail", url}, {"bells-diff", bells}} {
		b.Run(tc.name, func(b *testing.B) {
			m := newTestModel(b, 140, 40, tc.path)
			if tc.name != "url-list" {
				press(b, m, "enter")
			}
			b.ReportAllocs()
			for b.Loop() {
				m.View()
			}
		})
	}
}
