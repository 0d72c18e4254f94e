package bench

import (
	"bytes"
	"strconv"
)

// The parts of a content event. Together with a sequence number, a send time
// and a word they make about 260 bytes, the size of a real
// chat.completion.chunk carrying one token.
const (
	eventHead = `data: {"id":"chatcmpl-seambench7QxWm2Jd0Fh8KcLr","object":"chat.completion.chunk",` +
		`"created":1727346171,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_7568d46099","x_seq":`
	eventSent = `,"x_sent_ns":`
	eventBody = `,"choices":[{"index":0,"delta":{"content":"`
	eventTail = `"},"logprobs":null,"finish_reason":null}]}` + "\n\n"
)

// finalEvents end every stream: the finish event with usage, then [DONE].
const finalEvents = `data: {"id":"chatcmpl-seambench7QxWm2Jd0Fh8KcLr","object":"chat.completion.chunk",` +
	`"created":1727346171,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_7568d46099",` +
	`"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],` +
	`"usage":{"prompt_tokens":79,"completion_tokens":412,"total_tokens":491}}` + "\n\n" +
	"data: [DONE]\n\n"

// words are the token texts of content events, JSON-escaped, chosen by
// sequence number: plain words, punctuation, an escaped quote and newline,
// and non-ASCII text.
var words = [...]string{
	"The", " proxy", " records", " both", " sides", ",", " byte", " for", " byte",
	".", ` \"quoted\"`, `\n\n`, " caf\u00e9", " \u6d41", " stream", "ing",
}

// appendEvent appends content event seq, stamped with send time sent.
func appendEvent(dst []byte, seq int, sent int64) []byte {
	dst = append(dst, eventHead...)
	dst = strconv.AppendInt(dst, int64(seq), 10)
	dst = append(dst, eventSent...)
	dst = strconv.AppendInt(dst, sent, 10)
	dst = append(dst, eventBody...)
	dst = append(dst, words[seq%len(words)]...)
	return append(dst, eventTail...)
}

// parseStamp returns the sequence number and send time of a content event's
// data line; ok is false for a line that is not a content event.
func parseStamp(line []byte) (seq int, sent int64, ok bool) {
	if !bytes.HasPrefix(line, []byte(eventHead)) {
		return 0, 0, false
	}
	rest := line[len(eventHead):]
	s, rest, ok := cutInt(rest)
	if !ok || !bytes.HasPrefix(rest, []byte(eventSent)) {
		return 0, 0, false
	}
	t, _, ok := cutInt(rest[len(eventSent):])
	if !ok {
		return 0, 0, false
	}
	return int(s), t, true
}

// cutInt parses the decimal digits at the start of b.
func cutInt(b []byte) (n int64, rest []byte, ok bool) {
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' && i < 19 {
		n = n*10 + int64(b[i]-'0')
		i++
	}
	return n, b[i:], i > 0
}
