package capture

import (
	"strings"

	"github.com/seam-dev/seam/sse"
)

// streamWatch follows one side's body to tell how its stream ended: it counts
// SSE events and notes whether a terminal event was seen. It parses only when
// the body is an event stream.
type streamWatch struct {
	isSSE    bool
	parser   sse.Parser
	events   int
	terminal bool
	emit     func(sse.Event)
}

func newStreamWatch(isSSE bool) *streamWatch {
	w := &streamWatch{isSSE: isSSE}
	w.emit = w.onEvent
	return w
}

func (w *streamWatch) feed(p []byte) {
	if w.isSSE {
		w.parser.Feed(p, w.emit)
	}
}

func (w *streamWatch) close() {
	if w.isSSE {
		w.parser.Close(w.emit)
	}
}

func (w *streamWatch) onEvent(e sse.Event) {
	w.events++
	if isTerminal(e) {
		w.terminal = true
	}
}

// isTerminal reports whether e ends a stream in one of the protocols seam
// knows: Chat Completions' [DONE], Anthropic's message_stop, the Responses
// API's response.completed/failed/incomplete, or an error event.
func isTerminal(e sse.Event) bool {
	switch e.Type {
	case "message_stop", "response.completed", "response.failed", "response.incomplete", "error":
		return true
	case "", "message":
	default:
		return false
	}
	if e.Data == "[DONE]" {
		return true
	}
	// Payloads sent without an event: line carry their type in the JSON
	// (Chat Completions chunks have no "type" at all).
	if !strings.Contains(e.Data, `"type"`) {
		return false
	}
	for _, t := range terminalTypes {
		if typeFieldIs(e.Data, t) {
			return true
		}
	}
	return false
}

var terminalTypes = []string{`"message_stop"`, `"response.completed"`, `"response.failed"`, `"response.incomplete"`}

// typeFieldIs reports whether the quoted value t appears in data as the value
// of a "type" key, so a text delta that merely mentions "message_stop" is not
// mistaken for the end of the stream.
func typeFieldIs(data, t string) bool {
	for rest, base := data, 0; ; {
		i := strings.Index(rest, t)
		if i < 0 {
			return false
		}
		before := strings.TrimRight(data[:base+i], " \t\r\n")
		if key, ok := strings.CutSuffix(before, ":"); ok {
			if strings.HasSuffix(strings.TrimRight(key, " \t\r\n"), `"type"`) {
				return true
			}
		}
		base += i + len(t)
		rest = data[base:]
	}
}
