package protocol

import (
	"bytes"
	"encoding/base64"
	"slices"

	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/internal/jsontext"
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

	// inner holds a Bedrock Invoke chunk's decoded bytes.
	inner []byte
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

// detect tells the protocol from one event, as Detect does, within the
// events Detect looks at.
func (w *Watch) detect(f *framing.Frame, data []byte) {
	if w.events > detectWithin {
		return
	}
	w.proto = eventProtocol(f.Name, f.MessageType, data)
	if w.proto == Unknown && f.MessageType == "" && bytes.Equal(bytes.TrimSpace(data), done) {
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
			return w.invokeTerminal(data)
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
	return typeIsTerminal(data)
}

var (
	done          = []byte("[DONE]")
	typeKey       = []byte(`"type"`)
	messageStop   = []byte(`"message_stop"`)
	terminalTypes = [][]byte{messageStop, []byte(`"response.completed"`), []byte(`"response.failed"`),
		[]byte(`"response.incomplete"`), []byte(`"message-end"`)}
	doneKey   = []byte(`"done"`)
	reasonKey = []byte(`Reason"`)
	errorKey  = []byte(`"error"`)
	trueValue = []byte("true")
	bytesKey  = []byte(`"bytes"`)
	// stopReasonKeys are the keys one of which a Bedrock Invoke chunk that
	// ends the stream carries (InvokeChunkEnds says whether it does).
	stopReasonKeys = [][]byte{messageStop, []byte(`"messageStop"`), []byte(`"completionReason"`), []byte(`"stop_reason"`),
		[]byte(`"finish_reason"`), []byte(`"amazon-bedrock-guardrailAction"`)}
)

// typeIsTerminal reports whether a payload's "type" is one that ends a
// stream.
func typeIsTerminal(data []byte) bool {
	if !bytes.Contains(data, typeKey) {
		return false
	}
	for _, t := range terminalTypes {
		if memberIs(data, typeKey, t) {
			return true
		}
	}
	return false
}

// memberIs reports whether data has a member named key (quoted, as
// `"type"`) whose value starts with val, at any depth. It reads bytes, not
// JSON, to stay off the allocator on the proxy's path: a quote inside a
// JSON string is escaped, so a text that merely mentions the key, such as
// a delta saying "message_stop", is not taken for it.
func memberIs(data, key, val []byte) bool {
	for i := 0; ; {
		k := bytes.Index(data[i:], key)
		if k < 0 {
			return false
		}
		i += k + len(key)
		v := jsontext.SkipSpace(data, i)
		if v < len(data) && data[v] == ':' && bytes.HasPrefix(data[jsontext.SkipSpace(data, v+1):], val) {
			return true
		}
	}
}

// geminiTerminal reports whether a Gemini chunk ends the stream: a
// candidate's finishReason, a prompt block, or an error.
func geminiTerminal(data []byte) bool {
	if !bytes.Contains(data, reasonKey) && !bytes.Contains(data, errorKey) {
		return false // no "finishReason", "blockReason" or "error"
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
// an error. Every line has a "done" member, so the line is parsed only
// when one says true.
func ollamaTerminal(data []byte) bool {
	if !memberIs(data, doneKey, trueValue) && !bytes.Contains(data, errorKey) {
		return false
	}
	r := gjson.ParseBytes(data)
	return r.Get("done").Bool() || r.Get("error").Exists()
}

// invokeTerminal reports whether a Bedrock Invoke chunk ends the stream:
// the model's own terminal event, or a stop reason. The chunk's bytes are
// decoded into a buffer the Watch keeps, and parsed only when they carry a
// stop reason.
func (w *Watch) invokeTerminal(data []byte) bool {
	b64, ok := stringMember(data, bytesKey)
	if !ok {
		r := gjson.GetBytes(data, "bytes") // escaped, or not a string
		if r.Type != gjson.String {
			return false
		}
		b64 = []byte(r.String())
	}
	n := base64.StdEncoding.DecodedLen(len(b64))
	if cap(w.inner) < n || cap(w.inner) > 1<<20 && n < 1<<20 {
		w.inner = make([]byte, n)
	}
	n, err := base64.StdEncoding.Decode(w.inner[:n], b64)
	if err != nil {
		return false
	}
	inner := w.inner[:n]
	if !slices.ContainsFunc(stopReasonKeys, func(k []byte) bool { return bytes.Contains(inner, k) }) {
		return false
	}
	return InvokeChunkEnds(inner)
}

// stringMember returns the value of the first member of data named key
// (quoted) when it is a string without escapes, as a view into data.
func stringMember(data, key []byte) ([]byte, bool) {
	k := bytes.Index(data, key)
	if k < 0 {
		return nil, false
	}
	i := jsontext.SkipSpace(data, k+len(key))
	if i >= len(data) || data[i] != ':' {
		return nil, false
	}
	i = jsontext.SkipSpace(data, i+1)
	if i >= len(data) || data[i] != '"' {
		return nil, false
	}
	end := bytes.IndexAny(data[i+1:], `"\`)
	if end < 0 || data[i+1+end] != '"' {
		return nil, false
	}
	return data[i+1 : i+1+end], true
}
