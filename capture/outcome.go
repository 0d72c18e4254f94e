package capture

import (
	"bytes"

	"github.com/seam-dev/seam/sse"
)

// streamWatch follows one side's body to tell how its stream ended: it counts
// SSE events and notes whether a terminal event was seen. It parses only when
// the body is an event stream.
//
// It also keeps where the events of the last chunk ended, so that when the
// client side is the upstream side's bytes (passthrough), the client side's
// events are counted from the upstream side's parse ([streamWatch.prefix])
// instead of parsing the same bytes twice.
type streamWatch struct {
	isSSE    bool
	parser   sse.Parser
	events   int
	terminal bool
	emit     func(sse.Event, []byte)

	fed         int64   // bytes fed
	chunkEvents int     // events before the last chunk fed
	ends        []int64 // end offsets of the events since then
	terminalAt  int64   // end offset of the first terminal event, or -1
}

func newStreamWatch(isSSE bool) *streamWatch {
	w := &streamWatch{isSSE: isSSE, terminalAt: -1}
	w.emit = w.onEvent
	return w
}

func (w *streamWatch) feed(p []byte) {
	if w.isSSE {
		w.chunkEvents, w.ends = w.events, w.ends[:0]
		w.parser.FeedView(p, w.emit)
	}
	w.fed += int64(len(p))
}

func (w *streamWatch) close() {
	if w.isSSE {
		w.parser.CloseView(w.emit)
	}
}

func (w *streamWatch) onEvent(e sse.Event, data []byte) {
	w.events++
	w.ends = append(w.ends, e.End)
	if isTerminal(e.Type, data) {
		w.terminal = true
		if w.terminalAt < 0 {
			w.terminalAt = e.End
		}
	}
}

// prefix returns what a watch fed only the first n bytes, then closed, would
// say, for n at or after the start of the last chunk fed: the events
// complete within them, and whether a terminal event was among those.
func (w *streamWatch) prefix(n int64) (events int, terminal bool) {
	if n >= w.fed {
		return w.events, w.terminal
	}
	events = w.chunkEvents
	for _, end := range w.ends {
		if end <= n {
			events++
		}
	}
	return events, w.terminalAt >= 0 && w.terminalAt <= n
}

// isTerminal reports whether an event of type typ carrying data ends a
// stream in one of the protocols seam knows: Chat Completions' [DONE],
// Anthropic's message_stop, the Responses API's
// response.completed/failed/incomplete, or an error event.
func isTerminal(typ string, data []byte) bool {
	switch typ {
	case "message_stop", "response.completed", "response.failed", "response.incomplete", "error":
		return true
	case "", "message":
	default:
		return false
	}
	if string(data) == "[DONE]" {
		return true
	}
	// Payloads sent without an event: line carry their type in the JSON
	// (Chat Completions chunks have no "type" at all).
	if !bytes.Contains(data, typeKey) {
		return false
	}
	for _, t := range terminalTypes {
		if typeFieldIs(data, t) {
			return true
		}
	}
	return false
}

var (
	typeKey       = []byte(`"type"`)
	terminalTypes = [][]byte{[]byte(`"message_stop"`), []byte(`"response.completed"`), []byte(`"response.failed"`), []byte(`"response.incomplete"`)}
)

// typeFieldIs reports whether the quoted value t appears in data as the value
// of a "type" key, so a text delta that merely mentions "message_stop" is not
// mistaken for the end of the stream.
func typeFieldIs(data, t []byte) bool {
	for base := 0; ; {
		i := bytes.Index(data[base:], t)
		if i < 0 {
			return false
		}
		before := bytes.TrimRight(data[:base+i], " \t\r\n")
		if key, ok := bytes.CutSuffix(before, []byte(":")); ok {
			if bytes.HasSuffix(bytes.TrimRight(key, " \t\r\n"), typeKey) {
				return true
			}
		}
		base += i + len(t)
	}
}
