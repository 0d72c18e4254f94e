package inspect

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/clients"
	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/internal/jsonvalue"
	"github.com/seam-dev/seam/internal/jsstring"
	"github.com/seam-dev/seam/protocol"
	"github.com/sergi/go-diff/diffmatchpatch"
)

// textSides returns the sides whose choice-0 text the text detectors read.
func (c *exCtx) textSides() []*SideReport {
	var out []*SideReport
	for _, s := range c.rep.Sides {
		if len(s.Message.Choices) > 0 && s.Message.Choices[0].Text != "" {
			out = append(out, s)
		}
	}
	return out
}

// bornAt returns the event after which the text first contains text[i:j]
// (the event that added byte j-1), and whether one event added all of it.
func bornAt(spans []protocol.Span, i, j int) (ev int, single bool) {
	ev = protocol.EventAt(spans, j-1)
	return ev, protocol.EventAt(spans, i) == ev
}

// runXML checks the assembled text of each side the way Obsidian Copilot's
// XML era reads it (docs/PROTOCOLS.md#obsidian-xml; bug classes A, G and P
// of docs/GLOSSARY.md).
func runXML(c *exCtx) {
	for _, s := range c.textSides() {
		ch := &s.Message.Choices[0]
		if !strings.Contains(ch.Text, "use_tool") {
			continue
		}
		x := &xmlText{c: c, s: s, ch: ch, text: ch.Text}
		x.unclosedClosers()
		x.partialOpeners()
		x.blocks()
		x.params()
	}
}

// xmlText is one side's assembled text as runXML checks it.
type xmlText struct {
	c    *exCtx
	s    *SideReport
	ch   *protocol.Choice
	text string
}

// at returns where bytes i to j of the text were born, and says whether
// one delta holds them.
func (x *xmlText) at(i, j int) (Pointer, string) {
	ev, single := bornAt(x.ch.Spans, i, j)
	where := "no single delta contains it"
	if single {
		where = "one delta contains it"
	} else if first := protocol.EventAt(x.ch.Spans, i); first >= 0 {
		where = "it spans events " + strconv.Itoa(first) + "–" + strconv.Itoa(ev) + "; no single delta contains it"
	}
	return x.c.sidePointer(x.s, ev), where
}

// unclosedClosers finds "</use_tool" not followed by '>'.
func (x *xmlText) unclosedClosers() {
	text := x.text
	for i := 0; ; {
		k := strings.Index(text[i:], "</use_tool")
		if k < 0 {
			break
		}
		k += i
		i = k + len("</use_tool")
		if i < len(text) && text[i] == '>' {
			continue
		}
		j := i
		if gt := strings.IndexByte(text[i:min(len(text), i+48)], '>'); gt >= 0 {
			j = i + gt + 1
		} else {
			j = min(len(text), i+16)
		}
		p, where := x.at(k, j)
		if j == k+len("</use_tool") {
			j = min(len(text), j+1)
		}
		x.c.emit("xml.unclosed-closer", p, text[k:j], "assembled "+string(x.s.Side)+" text has "+strconv.Quote(text[k:j])+": the closer runs into what follows, so Obsidian merges the calls; born at this event ("+where+")")
	}
}

// partialOpeners finds "<use_tool" not followed by '>'.
func (x *xmlText) partialOpeners() {
	text := x.text
	for i := 0; ; {
		k := strings.Index(text[i:], "<use_tool")
		if k < 0 {
			break
		}
		k += i
		i = k + len("<use_tool")
		if i < len(text) && text[i] == '>' {
			continue
		}
		j := min(len(text), i+12)
		p, where := x.at(k, min(len(text), i+1))
		x.c.emit("xml.partial-opener", p, text[k:j], "assembled "+string(x.s.Side)+" text has a partial opener "+strconv.Quote(text[k:j])+" ("+where+")")
	}
}

// blocks checks how the blocks open and close: an opener inside a block,
// the same block twice, a last block never closed, text after the last
// block.
func (x *xmlText) blocks() {
	text, c := x.text, x.c
	depth, lastClose := 0, -1
	var bodies []string
	openAt := -1
	for i := 0; i < len(text); {
		o := strings.Index(text[i:], clients.XMLOpen)
		cl := strings.Index(text[i:], clients.XMLClose)
		switch {
		case o >= 0 && (cl < 0 || o < cl):
			pos := i + o
			if depth > 0 {
				p, where := x.at(pos, pos+len(clients.XMLOpen))
				c.emit("xml.nested-opener", p, excerpt.Clip(text[max(openAt, pos-40):pos+len(clients.XMLOpen)], 80), "<use_tool> opens before the block at byte "+strconv.Itoa(openAt)+" closed ("+where+")")
			}
			depth, openAt = depth+1, pos
			i = pos + len(clients.XMLOpen)
		case cl >= 0:
			pos := i + cl
			if depth > 0 {
				body := text[openAt:pos]
				for _, b := range bodies {
					if b == body {
						p, _ := x.at(openAt, pos+len(clients.XMLClose))
						c.emit("xml.duplicate-block", p, excerpt.Clip(body, 80), "the same tool block appears twice")
						break
					}
				}
				bodies = append(bodies, body)
			}
			depth, lastClose = 0, pos+len(clients.XMLClose)
			i = lastClose
		default:
			i = len(text)
		}
	}
	if depth > 0 {
		p, _ := x.at(openAt, len(text))
		c.emit("xml.unclosed-block", p, excerpt.Clip(text[openAt:], 80), "the last tool block is never closed: Obsidian parses it best effort and hides everything after <use_tool>")
	}
	if lastClose >= 0 && depth == 0 {
		if tail := jsstring.Trim(text[lastClose:]); tail != "" {
			p, _ := x.at(lastClose, len(text))
			c.emit("xml.text-after-tools", p, excerpt.Clip(tail, 80), "text after the last </use_tool>: Copilot may hang on \"Calling …\"")
		}
	}
}

// params checks the parameters of each call as Obsidian reads it: all
// in one <args>, or one never closed.
func (x *xmlText) params() {
	for _, call := range x.c.xmlCallsOf(x.s, x.ch) {
		if _, ok := call.Args["args"]; ok {
			p, _ := x.at(call.Start, call.End)
			x.c.emit("xml.args-param", p, excerpt.Clip(x.text[call.Start:call.End], 100), "tool "+call.Name+" gets its arguments in <args>: Obsidian reads {\"args\": …}, not the parameters")
		}
		body := x.text[call.Start:call.End]
		for _, tag := range unclosedTags(body) {
			p, _ := x.at(call.Start, call.End)
			x.c.emit("xml.unclosed-param", p, "<"+tag+">", "parameter <"+tag+"> of "+call.Name+" is never closed: Obsidian drops it")
		}
	}
}

// unclosedTags lists simple tags opened in a block body and never closed.
func unclosedTags(body string) []string {
	var out []string
	for i := 0; i < len(body); {
		lt := strings.IndexByte(body[i:], '<')
		if lt < 0 {
			break
		}
		lt += i
		gt := strings.IndexByte(body[lt:], '>')
		if gt < 0 {
			break
		}
		tag := body[lt+1 : lt+gt]
		i = lt + gt + 1
		if tag == "" || tag == "use_tool" || strings.HasPrefix(tag, "/") || !isIdent(tag) {
			continue
		}
		if !strings.Contains(body[i:], "</"+tag+">") {
			out = append(out, tag)
		}
	}
	return out
}

func isIdent(s string) bool {
	for _, r := range s {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

func runProtocolDump(c *exCtx) {
	for _, s := range c.textSides() {
		ch := s.Message.Choices[0]
		for _, needle := range []string{`"type":"agent_`, `"type": "agent_`, `{"type":"response.`, "data: {\"", `"object":"chat.completion`} {
			if i := strings.Index(ch.Text, needle); i >= 0 {
				c.emit("text.protocol-dump", c.sidePointer(s, protocol.EventAt(ch.Spans, i)), excerpt.Clip(ch.Text[i:], 80), "assembled "+string(s.Side)+" text contains raw protocol JSON")
				break
			}
		}
	}
}

// runDuplicateCalls reports each tool call that repeats an earlier one
// (same name and arguments, another id), once, against the first it
// repeats; each call's arguments are decoded once. A stream of n equal
// calls gets n-1 findings, not one per pair.
func runDuplicateCalls(c *exCtx) {
	for _, s := range c.rep.Sides {
		if len(s.Message.Choices) == 0 {
			continue
		}
		calls := s.Message.Choices[0].ToolCalls
		if len(calls) < 2 {
			continue
		}
		type args struct {
			v  any
			ok bool
		}
		decoded := make([]args, len(calls))
		for i := range calls {
			decoded[i].v, decoded[i].ok = jsonvalue.Decode(calls[i].Arguments)
		}
		same := func(i, j int) bool {
			if calls[i].Arguments == calls[j].Arguments {
				return true
			}
			return decoded[i].ok && decoded[j].ok && jsonvalue.Equal(decoded[i].v, decoded[j].v, false)
		}
		for j := 1; j < len(calls); j++ {
			for i := range j {
				if calls[i].Name == calls[j].Name && calls[i].ID != calls[j].ID && same(i, j) {
					c.emit("tool.duplicate-call", c.sidePointer(s, -1), calls[i].Name+"("+excerpt.Clip(calls[i].Arguments, 60)+") #"+calls[i].ID+" and #"+calls[j].ID, "the same call is made twice with different ids")
					break
				}
			}
		}
	}
}

// boundaryDedupe looks for small deletions between the upstream and client
// text at an upstream delta boundary where the deleted bytes repeat the ones
// next to them: the overlap dedupe of bug class C ("timeanddate" →
// "timeandate"). It reads the edits of the upstream-vs-client diff before
// their semantic cleanup (c.upEdits).
func boundaryDedupe(c *exCtx, up, cl *SideReport) {
	diffs := c.upEdits
	if up == nil || cl == nil || len(diffs) == 0 {
		return
	}
	a, b := choiceAt(up.Message, 0), choiceAt(cl.Message, 0)
	boundary := map[int]bool{}
	for _, s := range a.Spans {
		boundary[s.At] = true
	}
	ao, bo := 0, 0
	for k, d := range diffs {
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			ao += len(d.Text)
			bo += len(d.Text)
		case diffmatchpatch.DiffInsert:
			bo += len(d.Text)
		case diffmatchpatch.DiffDelete:
			n := len(d.Text)
			adjInsert := (k > 0 && diffs[k-1].Type == diffmatchpatch.DiffInsert) || (k+1 < len(diffs) && diffs[k+1].Type == diffmatchpatch.DiffInsert)
			repeats := (ao >= n && a.Text[ao-n:ao] == d.Text) || (ao+2*n <= len(a.Text) && a.Text[ao+n:ao+2*n] == d.Text)
			if n <= 8 && !adjInsert && repeats && (boundary[ao] || boundary[ao+n]) {
				ev := protocol.EventAt(b.Spans, max(bo-1, 0))
				from := max(0, ao-12)
				c.emit("diff.boundary-dedupe", c.sidePointer(cl, ev), "upstream "+strconv.Quote(a.Text[from:min(len(a.Text), ao+n+12)])+" / client "+strconv.Quote(b.Text[max(0, bo-12):min(len(b.Text), bo+12)]),
					"client lost "+strconv.Quote(d.Text)+" at an upstream delta boundary (overlap dedupe)")
			}
			ao += n
		}
	}
}

// runRequestLint checks the captured request's message history: tool
// results with no call before them, a user prompt sent again beside a
// result, results answering no call.
func runRequestLint(c *exCtx) {
	if c.req == nil {
		return
	}
	msgs := c.req.Messages
	ids := map[string]bool{}
	for i, m := range msgs {
		for _, tc := range m.ToolCalls {
			if tc.ID != "" {
				ids[tc.ID] = true
			}
		}
		if m.Role != "tool" {
			continue
		}
		prev := i - 1
		for prev >= 0 && msgs[prev].Role == "tool" {
			prev--
		}
		p := c.reqPointer()
		if prev < 0 || msgs[prev].Role != "assistant" || len(msgs[prev].ToolCalls) == 0 {
			before := "nothing"
			if prev >= 0 {
				before = "a " + msgs[prev].Role + " message"
			}
			c.emit("req.orphan-tool-result", p, "message "+strconv.Itoa(i)+": tool result "+m.ToolCallID+" after "+before,
				"tool result with no preceding assistant tool_calls: the model cannot tell what it answers (blank continuation)")
			if prev >= 0 && msgs[prev].Role == "user" {
				c.emit("req.resent-user-prompt", p, "message "+strconv.Itoa(prev)+": "+strconv.Quote(excerpt.Clip(msgs[prev].Text, 60)),
					"the user prompt is sent again right before the tool result instead of the assistant's tool call")
			}
			continue
		}
		if m.ToolCallID != "" && !ids[m.ToolCallID] {
			c.emit("req.unknown-tool-call-id", p, "message "+strconv.Itoa(i)+": tool_call_id "+m.ToolCallID, "tool result id matches no tool call in the request")
		}
	}
}

// callToCheck is a tool call with its parameter names, for schema checks.
type callToCheck struct {
	name  string
	keys  []string
	where string
	p     Pointer
}

// runSchema checks tool calls (in the response, and in the request's
// history) against the tools the request declares, in its tools field or in
// Obsidian's XML catalogue.
func runSchema(c *exCtx) {
	if c.req == nil || len(c.req.Tools) == 0 {
		return
	}
	var calls []callToCheck
	addText := func(text, where string, p Pointer) {
		for _, x := range clients.ParseXMLToolCalls(text) {
			calls = append(calls, callToCheck{name: x.Name, keys: x.Keys, where: where, p: p})
		}
	}
	addJSON := func(tc protocol.ToolCall, where string, p Pointer) {
		var obj map[string]json.RawMessage
		_ = json.Unmarshal([]byte(tc.Arguments), &obj)
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		calls = append(calls, callToCheck{name: tc.Name, keys: keys, where: where, p: p})
	}
	if v := c.view; v != nil && len(v.Message.Choices) > 0 {
		ch := &v.Message.Choices[0]
		for _, x := range c.xmlCallsOf(v, ch) {
			calls = append(calls, callToCheck{name: x.Name, keys: x.Keys, where: "response text", p: c.sidePointer(v, protocol.EventAt(ch.Spans, max(x.End-1, 0)))})
		}
		for _, tc := range ch.ToolCalls {
			addJSON(tc, "response tool call", c.sidePointer(v, -1))
		}
	}
	for i, m := range c.req.Messages {
		if m.Role != "assistant" {
			continue
		}
		addText(m.Text, "request message "+strconv.Itoa(i), c.reqPointer())
		for _, tc := range m.ToolCalls {
			addJSON(tc, "request message "+strconv.Itoa(i), c.reqPointer())
		}
	}
	for _, k := range calls {
		ts := c.req.Tools[k.name]
		if ts == nil {
			c.emit("schema.unknown-tool", k.p, k.name, k.where+": tool "+k.name+" is not declared by the request")
			continue
		}
		if ts.Void {
			if len(k.keys) > 0 {
				c.emit("schema.void-args", k.p, k.name+" given "+strings.Join(k.keys, ", "), k.where+": "+k.name+" takes no parameters but gets "+strings.Join(k.keys, ", ")+": validation fails silently (\"Tool executed but returned no result\")")
			}
			continue
		}
		have := map[string]bool{}
		for _, key := range k.keys {
			have[key] = true
			if _, ok := ts.Params[key]; !ok {
				c.emit("schema.unknown-param", k.p, k.name+"."+key, k.where+": "+k.name+" has no parameter "+key)
			}
		}
		var missing []string
		for name, req := range ts.Params {
			if req && !have[name] {
				missing = append(missing, name)
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			c.emit("schema.missing-param", k.p, k.name+" lacks "+strings.Join(missing, ", "), k.where+": "+k.name+" lacks required "+strings.Join(missing, ", "))
		}
	}
}

// runRetrySeam flags an exchange whose request repeats the previous one
// after that one failed (Obsidian's retry reuses its text streamer).
func runRetrySeam(c *exCtx) {
	p := c.prev
	if p == nil || p.x.Request == nil || c.x.Request == nil || len(c.x.Request.Body) == 0 {
		return
	}
	// A retry goes to the same place: the same body sent to another model
	// in the path (Bedrock, Gemini) or another host is another request.
	same := p.x.Request.Method == c.x.Request.Method && p.x.Request.URL == c.x.Request.URL && p.x.Request.Host == c.x.Request.Host
	if !same || !bytes.Equal(p.x.Request.Body, c.x.Request.Body) || p.view == nil {
		return
	}
	failed := p.view.Message.Error != "" || (p.view.Outcome != "" && !p.view.Outcome.Success()) || p.view.Status >= 400
	if failed {
		c.emit("exchange.retry-seam", c.reqPointer(), "exchange "+strconv.Itoa(p.x.Ex)+" failed ("+excerpt.Clip(p.view.Message.Error+" "+string(p.view.Outcome), 60)+")",
			"same request as the failed exchange "+strconv.Itoa(p.x.Ex)+": a client that keeps its text buffer joins both attempts")
	}
}
