package protocol

import (
	"bytes"
	"encoding/base64"

	"github.com/seam-dev/seam/framing"
	"github.com/tidwall/gjson"
)

// Watch follows a body as it arrives to tell how its stream ended: it counts
// events and notes whether the protocol's terminal signal came ([DONE],
// message_stop, response.completed, a Gemini finishReason, Ollama's done
// line, Cohere's message-end, Bedrock's messageStop or an exception, an
// error event). It is what a recording proxy needs on its read path, so it
// decodes only what it must: the framing of the first bytes, the protocol
// of the first events, then one cheap check per event. A Watch is not safe
// for concurrent use.
type Watch struct {
	url      string
	declared framing.Kind
	kind     framing.Kind
	parser   framing.Parser
	head     []byte // bytes held until the framing is told
	events   int
	terminal bool
	proto    Protocol
	emit     framing.Emit

	// For Prefix: the bytes fed, the events and terminal state before the
	// last Feed, the end offsets of the events since, and the end offset of
	// the terminal event (-1 before it).
	fed          int64
	feedEvents   int
	feedTerminal bool
	ends         []int64
	terminalAt   int64
}

// NewWatch returns a Watch for a body served with the Content-Type ct in
// answer to a request for url (path and query).
func NewWatch(ct, url string) *Watch {
	w := &Watch{url: url, declared: framing.FromContentType(ct), proto: Unknown, terminalAt: -1}
	w.emit = w.onFrame
	return w
}

// Events returns how many events the body carried so far.
func (w *Watch) Events() int { return w.events }

// Terminal reports whether the stream's terminal signal was seen.
func (w *Watch) Terminal() bool { return w.terminal }

// Known reports whether the body is a stream of a protocol the Watch
// knows (told from its events, or from the URL once the body ended when it
// is the stream its Content-Type declares), so that no terminal signal
// means the stream was cut.
func (w *Watch) Known() bool { return w.kind != framing.Unknown && w.proto != Unknown }

// Framing returns the framing the body was read with (Unknown until told).
func (w *Watch) Framing() framing.Kind { return w.kind }

// Prefix returns what a Watch fed only the first n bytes of the body, then
// closed, would say, for n at or after the start of the last Feed: the
// events complete within them, and whether the terminal event was among
// those. A recording proxy uses it for a client that got the upstream's
// bytes unchanged but, going away, not all of them.
func (w *Watch) Prefix(n int64) (events int, terminal bool) {
	if n >= w.fed {
		return w.events, w.terminal
	}
	events = w.feedEvents
	for _, end := range w.ends {
		if end <= n {
			events++
		}
	}
	return events, w.feedTerminal || w.terminalAt >= 0 && w.terminalAt <= n
}

// Feed follows the next bytes of the body.
func (w *Watch) Feed(p []byte) {
	w.feedEvents, w.feedTerminal, w.ends = w.events, w.terminal, w.ends[:0]
	w.fed += int64(len(p))
	if w.parser == nil {
		if len(w.head) == 0 && len(p) >= 12 {
			w.head = p // enough to tell the framing: no copy
		} else {
			w.head = append(w.head, p...)
		}
		if len(w.head) < 12 {
			return
		}
		w.start()
		p, w.head = w.head, nil
	}
	w.parser.Feed(p, w.emit)
}

// Close ends the body.
func (w *Watch) Close() {
	if w.parser == nil {
		if len(w.head) == 0 && w.declared != framing.SSE {
			return // an empty body, or one that is no stream
		}
		w.start()
		w.parser.Feed(w.head, w.emit)
		w.head = nil
	}
	w.parser.Close(w.emit)
	if w.proto == Unknown && w.declared == w.kind {
		// No event told the protocol (none came, or none it knows): the
		// endpoint does, for a body that is the stream its type declares.
		w.proto = FromURL(w.url)
	}
}

// start tells the framing from the declared type and the first bytes. A
// single JSON document under a JSON type is no stream: its framing stays
// Unknown and it has no terminal to wait for.
func (w *Watch) start() {
	k, _ := framing.Choose("", w.head)
	switch {
	case w.declared != framing.Unknown:
		k, _ = framing.Choose(w.declared.ContentType(), w.head)
	case k == framing.NDJSON || k == framing.SSE:
		// Under application/json, text/plain or no type: a stream only
		// if its bytes are clearly one.
		if k == framing.SSE && !looksSSE(w.head) {
			k = framing.Unknown
		}
		if k == framing.NDJSON {
			k = framing.Unknown
		}
	}
	w.kind = k
	w.parser = framing.New(k, nil)
}

// looksSSE reports whether a body starts with an SSE field or comment.
func looksSSE(head []byte) bool {
	for _, f := range []string{"data:", "event:", "id:", "retry:", ":"} {
		if bytes.HasPrefix(head, []byte(f)) {
			return true
		}
	}
	return false
}

func (w *Watch) onFrame(f framing.Frame, data []byte) {
	if w.kind == framing.Unknown {
		return
	}
	w.events++
	w.ends = append(w.ends, f.End)
	if w.proto == Unknown {
		w.detect(&f, data)
	}
	if !w.terminal && w.isTerminal(&f, data) {
		w.terminal = true
		w.terminalAt = f.End
	}
}

// detect tells the protocol from one event, as Detect does.
func (w *Watch) detect(f *framing.Frame, data []byte) {
	switch {
	case f.MessageType == "exception" || f.MessageType == "error":
		return
	case f.Name == "chunk" && f.MessageType != "":
		w.proto = BedrockInvoke
	case FromEventName(f.Name) != Unknown:
		w.proto = FromEventName(f.Name)
	case len(data) > 0 && (data[0] == '{' || data[0] == '['):
		w.proto = FromPayload(string(data))
	case bytes.Equal(bytes.TrimSpace(data), []byte("[DONE]")):
		w.proto = Chat
	}
}

// isTerminal reports whether one event ends the stream.
func (w *Watch) isTerminal(f *framing.Frame, data []byte) bool {
	if f.MessageType == "exception" || f.MessageType == "error" {
		return true
	}
	switch f.Name {
	case "message_stop", "response.completed", "response.failed", "response.incomplete", "error",
		"message-end", "messageStop":
		return true
	case "chunk":
		if f.MessageType != "" {
			return invokeTerminal(data)
		}
	case "", "message":
	default:
		return false // a named event ends the stream only by its name
	}
	if bytes.Equal(data, done) {
		return true
	}
	switch w.proto {
	case Gemini:
		return geminiTerminal(data)
	case Ollama:
		return ollamaTerminal(data)
	}
	// Payloads sent without an event name carry their type in the JSON
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
	done          = []byte("[DONE]")
	typeKey       = []byte(`"type"`)
	terminalTypes = [][]byte{[]byte(`"message_stop"`), []byte(`"response.completed"`), []byte(`"response.failed"`),
		[]byte(`"response.incomplete"`), []byte(`"message-end"`)}
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

// geminiTerminal reports whether a Gemini chunk ends the stream: a
// candidate's finishReason, a prompt block, or an error.
func geminiTerminal(data []byte) bool {
	if !bytes.Contains(data, []byte(`"finishReason"`)) && !bytes.Contains(data, []byte(`"blockReason"`)) && !bytes.Contains(data, []byte(`"error"`)) {
		return false
	}
	r := gjson.ParseBytes(data)
	if r.IsArray() {
		r = r.Get("0")
	}
	if r.Get("error").Exists() || r.Get("promptFeedback.blockReason").String() != "" {
		return true
	}
	fin := false
	r.Get("candidates").ForEach(func(_, c gjson.Result) bool {
		fin = c.Get("finishReason").Exists()
		return !fin
	})
	return fin
}

// ollamaTerminal reports whether an Ollama line ends the stream: done, or
// an error.
func ollamaTerminal(data []byte) bool {
	if !bytes.Contains(data, []byte(`"done"`)) && !bytes.Contains(data, []byte(`"error"`)) {
		return false
	}
	r := gjson.ParseBytes(data)
	return r.Get("done").Bool() || r.Get("error").Exists()
}

// invokeTerminal reports whether a Bedrock Invoke chunk ends the stream:
// the model's own terminal event, or a stop reason.
func invokeTerminal(data []byte) bool {
	b64 := gjson.GetBytes(data, "bytes")
	if b64.Type != gjson.String {
		return false
	}
	inner, err := base64.StdEncoding.DecodeString(b64.String())
	if err != nil {
		return false
	}
	if typeFieldIs(inner, []byte(`"message_stop"`)) {
		return true
	}
	r := gjson.ParseBytes(inner)
	for _, k := range []string{"completionReason", "stop_reason", "outputs.0.stop_reason", "amazon-bedrock-guardrailAction"} {
		if v := r.Get(k); v.Type == gjson.String && v.String() != "" {
			return k != "stop_reason" || r.Get("type").String() == ""
		}
	}
	return false
}
