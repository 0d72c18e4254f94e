package inspect

import (
	"strconv"
	"strings"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/protocol"
	"github.com/tidwall/gjson"
)

// isErrorField reports whether an SSE field the spec ignores is a
// server's error line ("error: …", as llama.cpp-style servers write one
// when a stream fails).
func isErrorField(name string) bool { return strings.EqualFold(name, "error") }

// fieldError is the message of an "error:" field line: the error object
// when its value is one (as protocol.HTTPError reads a body), else the text.
func fieldError(value string) string {
	v := strings.TrimSpace(value)
	if gjson.Valid(v) && gjson.Parse(v).IsObject() {
		return protocol.HTTPError(nil, v)
	}
	return excerpt.Clip(v, protocol.ErrorClip)
}

// fieldErrors gives each side whose stream carries an "error:" field line
// that error as its message's, when its events carried none. It runs once
// the clients are emulated: no SSE client hears such a line, so none of
// them reports it.
func fieldErrors(c *exCtx) {
	for _, s := range c.rep.Sides {
		if s.ev == nil || s.Message.Error != "" {
			continue
		}
		for _, f := range s.ev.Fields {
			if isErrorField(f.Name) {
				if msg := fieldError(f.Value); msg != "" {
					s.Message.Error = msg
					break
				}
			}
		}
	}
}

// runFields reports the SSE field lines the spec ignores, with their
// text: an "error:" line is an error the server sent that no client
// hears (stream.error-event); any other, once per name, an unknown field.
func runFields(c *exCtx) {
	for _, s := range c.rep.Sides {
		if s.ev == nil || len(s.ev.Fields) == 0 {
			continue
		}
		n := map[string]int{}
		for _, f := range s.ev.Fields {
			n[f.Name]++
		}
		seen := map[string]bool{}
		for _, f := range s.ev.Fields {
			p := Pointer{Ex: c.x.Ex, Side: s.Side, Event: -1, Chunk: f.Chunk, Off: f.Off, T: f.T}
			line := excerpt.Clip(f.Name+": "+f.Value, 160)
			if isErrorField(f.Name) {
				msg := "the " + string(s.Side) + " stream sends an error in an \"" + excerpt.Clip(f.Name, 20) + ":\" field line, which SSE clients ignore"
				if text := fieldError(f.Value); text != "" {
					msg += ": " + excerpt.Clip(text, 120)
				}
				c.emit("stream.error-event", p, line, msg)
				continue
			}
			if seen[f.Name] {
				continue
			}
			seen[f.Name] = true
			msg := "the " + string(s.Side) + " stream has a field \"" + excerpt.Clip(f.Name, 40) + "\" that SSE clients ignore"
			if k := n[f.Name]; k > 1 {
				msg += " (" + strconv.Itoa(k) + " lines)"
			}
			if v := strings.TrimSpace(f.Value); v != "" {
				msg += ": " + excerpt.Clip(v, 120)
			}
			c.emit("sse.unknown-field", p, line, msg)
		}
		if s.ev.FieldsMore > 0 {
			c.emit("sse.unknown-field", c.sidePointer(s, -1), "",
				strconv.Itoa(s.ev.FieldsMore)+" more field lines SSE clients ignore on the "+string(s.Side)+" side, after the first "+strconv.Itoa(protocol.MaxFields))
		}
	}
}
