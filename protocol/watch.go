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
	// feedFinished is finished before the last Feed, and finishMarks
	// where it changed since (the end offset of the event that changed
	// it, and its new value).
	feedFinished bool
	finishMarks  []finishMark

	// inner holds a Bedrock Invoke chunk's decoded bytes.
	inner []byte
	// finished says the last Chat chunk with a delta gave its choice a
	// finish_reason: a stream that then ends without [DONE] ended there
	// (Perplexity and some gateways send none; the SDKs read to EOF).
	finished bool
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
		return w.events, w.terminal || w.proto == Chat && w.finished
	}
	events = w.feedEvents
	for _, end := range w.ends {
		if end <= n {
			events++
		}
	}
	finished := w.feedFinished
	for _, m := range w.finishMarks {
		if m.end <= n {
			finished = m.finished
		}
	}
	// A Chat stream cut where its choices had finished ended there, as
	// Close says of a whole one.
	return events, w.feedTerminal || w.terminalAt >= 0 && w.terminalAt <= n || w.proto == Chat && finished
}

// Feed follows the next bytes of the body.
func (w *Watch) Feed(p []byte) {
	w.feedEvents, w.feedTerminal, w.ends = w.events, w.terminal, w.ends[:0]
	w.feedFinished, w.finishMarks = w.finished, w.finishMarks[:0]
	w.fed += int64(len(p))
	if w.parser == nil {
		if len(w.head) == 0 && enoughHead(p) {
			w.head = p // enough to tell the framing: no copy
		} else {
			w.head = append(w.head, p...)
		}
		if !enoughHead(w.head) {
			return
		}
		w.start()
		p, w.head = w.head, nil
	}
	w.parser.Feed(p, w.emit)
}

// maxHead is how many leading bytes the framing is told from.
const maxHead = 4 << 10

// enoughHead reports whether head, the first bytes of the body, tells the
// framing: its first maxHead bytes, or its first 12 bytes (an event-stream
// prelude) and its first byte that is not JSON white space. The framing
// is then the same however the body was split into reads.
func enoughHead(head []byte) bool {
	if len(head) >= maxHead {
		return true
	}
	return len(head) >= 12 && len(bytes.TrimLeft(head, " \t\r\n")) > 0
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
	if !w.terminal && w.proto == Chat && w.finished {
		// A Chat stream whose choices had finished, ended by the body's
		// end without [DONE]: complete as the SDKs read it (inspect says
		// chat.no-done), its end the body's.
		w.terminal, w.terminalAt = true, w.fed
	}
}

// start tells the framing from the declared type and the first bytes. A
// single JSON document under a JSON type is no stream: its framing stays
// Unknown and it has no terminal to wait for.
func (w *Watch) start() {
	head := w.head[:min(len(w.head), maxHead)]
	k, _ := framing.Choose("", head)
	switch {
	case w.declared != framing.Unknown:
		k, _ = framing.Choose(w.declared.ContentType(), head)
	case k == framing.NDJSON || k == framing.SSE:
		// Under application/json, text/plain or no type: a stream only
		// if its bytes are clearly one.
		if k == framing.SSE && !looksSSE(head) {
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
	if w.proto == Chat && !w.terminal {
		w.noteFinish(data, f.End)
	}
}

// finishTail is how far from a Chat chunk's end its finish_reason is
// looked for first: the choices come last but for a usage or
// system_fingerprint member, so the whole chunk is read only when it is
// not there.
const finishTail = 128

// finishIsString reports whether a Chat chunk's finish_reason is a
// string (a reason, not null). It looks back from the chunk's end, colon
// by colon, over its last finishTail bytes first (one comparison for the
// usual chunk, which ends in "finish_reason":null}]}).
func finishIsString(data []byte) bool {
	i := -1
	for j := len(data) - 1; j >= max(len(finishKey)-1, len(data)-finishTail); j-- {
		if data[j] == ':' && bytes.Equal(data[j+1-len(finishKey):j+1], finishKey) {
			i = j + 1 - len(finishKey)
			break
		}
	}
	if i < 0 {
		if i = bytes.Index(data, finishKey); i < 0 {
			return false
		}
	}
	rest := bytes.TrimLeft(data[i+len(finishKey):], " ")
	return len(rest) > 0 && rest[0] == '"'
}

// finishMark is where a Chat stream's finished state changed.
type finishMark struct {
	end      int64
	finished bool
}

var (
	finishKey = []byte(`"finish_reason":`)
	deltaKey  = []byte(`"delta"`)
)

// noteFinish follows whether a Chat stream's choices have finished: a
// chunk with a finish_reason finishes it, a later chunk with a delta and
// none reopens it (another choice still streams), and one with neither (a
// usage chunk) leaves it as it is.
func (w *Watch) noteFinish(data []byte, end int64) {
	finished := w.finished
	if finishIsString(data) {
		finished = true
	} else if bytes.Contains(data, deltaKey) {
		finished = false
	}
	if finished != w.finished {
		w.finished = finished
		w.finishMarks = append(w.finishMarks, finishMark{end, finished})
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
	case Chat:
		return false // [DONE] ends it; its chunks carry no "type"
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
