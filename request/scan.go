package request

import (
	"strings"

	"github.com/seam-dev/seam/internal/jsontext"
	"github.com/seam-dev/seam/protocol"
	"github.com/tidwall/gjson"
)

// The messages of a request are read in one pass with jsontext's Scanner,
// which checks the body as it goes: a request carries its whole history,
// tens or hundreds of KB, and reading it with gjson took a validation pass,
// a pass per nesting level and one more per key looked up (Get), a third
// of seam stats' time on agent traffic. A message (or input item) of a
// shape the scanner does not read here (content that is neither a string
// nor a list of objects, tool calls that are not objects) is read from its
// text with gjson, as before: the result is the same either way
// (FuzzParse compares it with the gjson reader on every body).

// scanMessages reads the messages list at the scanner's position.
func scanMessages(sc *jsontext.Scanner, msgs []Message, rc *recaller) []Message {
	if sc.Peek() != '[' {
		return appendMessagesOf(msgs, gjson.Parse(sc.Raw()))
	}
	sc.Open('[')
	for n := 0; sc.Elem(&n); {
		seen, key, ok := rc.recall(messagesList, sc)
		if ok {
			msgs = append(msgs, seen...)
			continue
		}
		mark, before := sc.Mark(), len(msgs)
		if sc.Peek() != '{' {
			msgs = appendMessage(msgs, gjson.Parse(sc.Raw()))
		} else {
			var ok bool
			if msgs, ok = scanMessage(sc, msgs); !ok {
				msgs = appendMessage(msgs, gjson.Parse(sc.Since(mark)))
			}
		}
		rc.remember(messagesList, sc, key, sc.Since(mark), msgs[before:])
	}
	return msgs
}

// appendMessagesOf appends the messages of a messages value that is not a
// list, as gjson's ForEach walks it.
func appendMessagesOf(msgs []Message, v gjson.Result) []Message {
	v.ForEach(func(_, m gjson.Result) bool {
		msgs = appendMessage(msgs, m)
		return true
	})
	return msgs
}

// scanMessage reads the message object at the scanner's position as
// appendMessage reads it. It returns false, with the object consumed and
// msgs as they were, when the object is of a shape it leaves to
// appendMessage.
func scanMessage(sc *jsontext.Scanner, msgs []Message) ([]Message, bool) {
	var msg Message
	var results []Message
	var seen [4]bool
	ok := true
	sc.Open('{')
	for k := range sc.Members() {
		i := indexOf(k, "role", "content", "tool_call_id", "tool_calls")
		if i < 0 || seen[i] || !ok {
			sc.Skip()
			continue
		}
		seen[i] = true
		switch i {
		case 0:
			msg.Role = sc.Str()
		case 1:
			msg.Text, results, ok = scanContent(sc, &msg.ToolCalls, results)
		case 2:
			msg.ToolCallID = sc.Str()
		case 3:
			ok = scanToolCalls(sc, &msg.ToolCalls)
		}
	}
	if !ok {
		return msgs, false
	}
	// A message's tool_calls come before its content's tool_use blocks,
	// as appendMessage reads them; the scanner met them in the body's
	// order.
	if len(results) > 0 && strings.TrimSpace(msg.Text) == "" {
		return append(msgs, results...), true
	}
	msgs = append(msgs, msg)
	return append(msgs, results...), true
}

// indexOf returns the position of k among names, or -1.
func indexOf(k string, names ...string) int {
	for i, n := range names {
		if k == n {
			return i
		}
	}
	return -1
}

// scanToolCalls reads a Chat Completions tool_calls list, appending each
// call to calls; false (the value consumed) for a list of another shape.
func scanToolCalls(sc *jsontext.Scanner, calls *[]protocol.ToolCall) bool {
	if !sc.Open('[') { // gjson's ForEach reads a call of any other value, null included
		sc.Skip()
		return false
	}
	ok := true
	var tcs []protocol.ToolCall
	for n := 0; sc.Elem(&n); {
		if !ok || sc.Peek() != '{' {
			ok = false
			sc.Skip()
			continue
		}
		tc := protocol.ToolCall{Index: n - 1}
		var seenID, seenFn bool
		sc.Open('{')
		for k := range sc.Members() {
			switch {
			case k == "id" && !seenID:
				seenID, tc.ID = true, sc.Str()
			case k == "function" && !seenFn:
				seenFn = true
				if sc.Peek() != '{' {
					sc.Skip() // gjson finds no function.name in it
					continue
				}
				var seenName, seenArgs bool
				sc.Open('{')
				for fk := range sc.Members() {
					switch {
					case fk == "name" && !seenName:
						seenName, tc.Name = true, sc.Str()
					case fk == "arguments" && !seenArgs:
						seenArgs, tc.Arguments = true, sc.Str()
					default:
						sc.Skip()
					}
				}
			default:
				sc.Skip()
			}
		}
		tcs = append(tcs, tc)
	}
	if ok {
		// Calls of tool_calls come first (appendMessage reads them before
		// the content's tool_use blocks).
		*calls = append(tcs, *calls...)
	}
	return ok
}

// scanContent reads a message's content: a string, or a list of objects
// (blocks) whose "text" members join into the text, with Anthropic's
// tool_use blocks appended to calls and tool_result blocks to results. It
// returns false (the value consumed) for content of another shape.
func scanContent(sc *jsontext.Scanner, calls *[]protocol.ToolCall, results []Message) (string, []Message, bool) {
	switch sc.Peek() {
	case '"':
		return sc.Str(), results, true
	case 'n':
		sc.Skip()
		return "", results, true
	case '[':
	default:
		sc.Skip()
		return "", results, false
	}
	sc.Open('[')
	var b strings.Builder
	var one string // the text of the only block with one, not copied
	texts := 0
	ok := true
	for n := 0; sc.Elem(&n); {
		if !ok || sc.Peek() != '{' {
			ok = false
			sc.Skip()
			continue
		}
		blk, good := scanBlock(sc)
		if !good {
			ok = false
			continue
		}
		if blk.hasText {
			if texts++; texts == 1 {
				one = blk.text
			} else {
				if texts == 2 {
					b.WriteString(one)
				}
				b.WriteString(blk.text)
			}
		}
		switch blk.typ {
		case "tool_use":
			*calls = append(*calls, protocol.ToolCall{Index: n - 1, ID: blk.id, Name: blk.name, Arguments: blk.input})
		case "tool_result":
			results = append(results, Message{Role: "tool", ToolCallID: blk.toolUseID, Text: blk.content})
		}
	}
	if !ok {
		return "", results, false
	}
	if texts > 1 {
		return b.String(), results, true
	}
	return one, results, true
}

// block is what a content block says.
type block struct {
	typ, text, id, name, input, toolUseID, content string
	hasText                                        bool
}

// scanBlock reads one content block object, each member the first of its
// name as gjson's Get finds it; false (the object consumed) when its
// content is of a shape left to gjson.
func scanBlock(sc *jsontext.Scanner) (block, bool) {
	var blk block
	var seen [7]bool
	ok := true
	sc.Open('{')
	for k := range sc.Members() {
		i := indexOf(k, "type", "text", "id", "name", "input", "tool_use_id", "content")
		if i < 0 || seen[i] {
			sc.Skip()
			continue
		}
		seen[i] = true
		switch i {
		case 0:
			blk.typ = sc.Str()
		case 1:
			blk.text, blk.hasText = sc.Str(), true
		case 2:
			blk.id = sc.Str()
		case 3:
			blk.name = sc.Str()
		case 4:
			blk.input = sc.Raw()
		case 5:
			blk.toolUseID = sc.Str()
		case 6:
			var text string
			if text, ok = scanText(sc); ok {
				blk.content = text
			}
		}
	}
	return blk, ok
}

// scanText reads a content value for its text alone (a tool result's
// content): a string, or the "text" members of a list of objects. It
// returns false (the value consumed) for another shape.
func scanText(sc *jsontext.Scanner) (string, bool) {
	var calls []protocol.ToolCall
	text, _, ok := scanContent(sc, &calls, nil)
	return text, ok
}

// scanInput reads a Responses input list at the scanner's position into
// items, each as inputItem reads it (nil for an item that carries no
// message). It returns false (the value consumed) for a value that is not
// a list.
func scanInput(sc *jsontext.Scanner, rc *recaller) ([]*Message, bool) {
	if !sc.Open('[') {
		sc.Skip()
		return nil, false
	}
	var items []*Message
	for n := 0; sc.Elem(&n); {
		seen, key, ok := rc.recall(inputList, sc)
		if ok {
			items = append(items, itemOf(seen))
			continue
		}
		mark := sc.Mark()
		m, ok := scanItem(sc)
		if !ok {
			if mm, has := inputItem(gjson.Parse(sc.Since(mark))); has {
				m = &mm
			} else {
				m = nil
			}
		}
		items = append(items, m)
		if rc != nil {
			rc.remember(inputList, sc, key, sc.Since(mark), listOf(m))
		}
	}
	return items, true
}

// listOf is what a Reader remembers of an input item's message m: none
// for an item without one.
func listOf(m *Message) []Message {
	if m == nil {
		return nil
	}
	return []Message{*m}
}

// itemOf is an input item's message as a Reader recalls it: a copy of
// its own (readInput joins calls to it), or nil for an item without one.
func itemOf(seen []Message) *Message {
	if len(seen) == 0 {
		return nil
	}
	m := seen[0]
	return &m
}

// scanItem reads one input item as inputItem does: nil when it carries
// no message, false (the value consumed) for an item of a shape left to
// gjson.
func scanItem(sc *jsontext.Scanner) (*Message, bool) {
	if sc.Peek() != '{' {
		sc.Skip()
		return nil, false
	}
	var f [7]string
	var seen [7]bool
	ok := true
	sc.Open('{')
	for k := range sc.Members() {
		i := indexOf(k, "type", "role", "content", "call_id", "name", "arguments", "output")
		if i < 0 || seen[i] || !ok {
			sc.Skip()
			continue
		}
		seen[i] = true
		if i == 2 || i == 6 {
			f[i], ok = scanText(sc)
		} else {
			f[i] = sc.Str()
		}
	}
	if !ok {
		return nil, false
	}
	switch f[0] {
	case "function_call":
		return &Message{Role: "assistant", ToolCalls: []protocol.ToolCall{{ID: f[3], Name: f[4], Arguments: f[5]}}}, true
	case "function_call_output":
		return &Message{Role: "tool", ToolCallID: f[3], Text: f[6]}, true
	}
	if f[1] != "" {
		return &Message{Role: f[1], Text: f[2]}, true
	}
	return nil, true
}
