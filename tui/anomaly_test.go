package tui

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
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
{"type":"chunk","ex":1,"side":"upstream","t":4000,"off":900,"data":"data: {\"late\":1}\n\n"}
{"type":"end","ex":1,"side":"upstream","t":5000,"outcome":"complete","bytes":999999}
`
	writeCapture(t, path, []byte(lines))
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

// TestReadErrorExitStatus: a capture stream that fails mid-way (not at EOF)
// shows what was read and the error, and the error is kept for Run to
// return when the user quits, so seam tui exits non-zero.
func TestReadErrorExitStatus(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../fixtures/openai-chat-tools.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	r := io.MultiReader(bytes.NewReader(data), iotest.ErrReader(errors.New("device gone")))
	m := openModel(t, 100, 30, Options{Stream: r, StreamName: "pipe"})
	if len(m.sums) != 1 {
		t.Errorf("%d exchanges shown, want the 1 read before the error", len(m.sums))
	}
	if m.readErr == nil || m.readErr.Error() != "read pipe: device gone" || !strings.Contains(screen(m), "read pipe: device gone") {
		t.Errorf("read error %v; screen:\n%s", m.readErr, screen(m))
	}
}
