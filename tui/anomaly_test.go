package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnomalyBadge: an exchange whose lines contradict each other (an
// offset that jumps, an end claiming more bytes than its chunks hold) gets
// the error badge in the list and the tape findings in its detail, without
// a line number, which the list's partial read cannot know.
func TestAnomalyBadge(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "lies.ndjson")
	lines := `{"type":"capture","v":1,"seam":"0.1.0","id":"x","started":"2026-08-22T09:30:00Z","upstream":"https://api.openai.com","engine":{"profile":"passthrough"}}
{"type":"request","ex":1,"t":1000,"method":"POST","url":"/v1/chat/completions","headers":{},"body":"{\"model\":\"m\"}"}
{"type":"response","ex":1,"side":"upstream","t":2000,"status":200,"headers":{"content-type":["text/event-stream"]}}
{"type":"chunk","ex":1,"side":"upstream","t":3000,"off":0,"data":"data: [DONE]\n\n"}
{"type":"chunk","ex":1,"side":"upstream","t":4000,"off":900,"data":"data: [DONE]\n\n"}
{"type":"end","ex":1,"side":"upstream","t":5000,"outcome":"complete","bytes":999999}
`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, 120, 30, path)
	s := screen(m)
	found := false
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "/v1/chat/completions") && strings.Contains(l, " E3 ") {
			found = true
		}
	}
	if !found {
		t.Fatalf("no error badge (E3: offset gap, bytes mismatch, events after [DONE]) on the exchange:\n%s", s)
	}
	press(t, m, "enter", "3")
	s = screen(m)
	if !strings.Contains(s, "tape.offset-gap") || !strings.Contains(s, "tape.bytes-mismatch") {
		t.Errorf("the findings tab lacks the tape findings:\n%s", s)
	}
	if strings.Contains(s, "lies.ndjson:") {
		t.Errorf("a line number the detail cannot know:\n%s", s)
	}
}
