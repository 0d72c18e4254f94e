package tui

import (
	"bytes"
	"cmp"
	"encoding/json"
	"strings"

	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// reqView is the request as the Request tab shows it, parsed and indented
// in the command that builds the exchange's view so that drawing the tab
// only styles it.
type reqView struct {
	// list names the conversation array ("messages" or "input"), or is ""
	// when the body has neither.
	list  string
	items []reqItem
	tools []string
	// body and upBody are the request bodies (as sent by the client, and
	// as the proxy under test sent it upstream), indented when JSON, split
	// into lines.
	body, upBody []string
}

// reqItem summarises one message or input item of a request.
type reqItem struct {
	role       string
	toolCallID string
	// text is a preview of the content, at most maxPreview bytes and an
	// ellipsis.
	text      string
	toolCalls []reqToolCall
}

// reqToolCall is a tool call an assistant message carries.
type reqToolCall struct{ id, name, args string }

// maxPreview caps the content shown of one request message.
const maxPreview = 300

// parseRequest prepares x's request for the Request tab, or returns nil
// when none was recorded.
func parseRequest(x *tape.Exchange) *reqView {
	req := x.Request
	if req == nil {
		return nil
	}
	rv := &reqView{body: bodyLines(req.Body)}
	if up := x.UpstreamRequest; up != nil {
		rv.upBody = bodyLines(up.Body)
	}
	if !gjson.ValidBytes(req.Body) {
		return rv
	}
	j := gjson.ParseBytes(req.Body)
	var items []gjson.Result
	if msgs := j.Get("messages"); msgs.IsArray() {
		rv.list, items = "messages", msgs.Array()
	} else if in := j.Get("input"); in.IsArray() {
		rv.list, items = "input", in.Array()
	}
	for _, it := range items {
		rv.items = append(rv.items, parseItem(it))
	}
	if tools := j.Get("tools"); tools.IsArray() {
		for _, t := range tools.Array() {
			rv.tools = append(rv.tools, clean(cmp.Or(t.Get("function.name").String(), t.Get("name").String())))
		}
	}
	return rv
}

// parseItem summarises one request message: role, a preview of its
// content, and its tool calls or the call it answers.
func parseItem(msg gjson.Result) reqItem {
	it := reqItem{
		role:       clean(cmp.Or(msg.Get("role").String(), msg.Get("type").String())),
		toolCallID: clean(msg.Get("tool_call_id").String()),
	}
	content := msg.Get("content")
	text := content.String()
	if content.IsArray() {
		var parts []string
		for _, p := range content.Array() {
			parts = append(parts, cmp.Or(p.Get("text").String(), p.Get("content").String()))
		}
		text = strings.Join(parts, " ")
	}
	if len(text) > maxPreview {
		text = text[:maxPreview] + "…"
	}
	it.text = text
	for _, tc := range msg.Get("tool_calls").Array() {
		it.toolCalls = append(it.toolCalls, reqToolCall{
			id: clean(tc.Get("id").String()), name: clean(tc.Get("function.name").String()), args: tc.Get("function.arguments").String(),
		})
	}
	return it
}

// bodyLines returns a body's lines, indented first when it is JSON.
func bodyLines(body []byte) []string {
	var pretty bytes.Buffer
	if json.Indent(&pretty, body, "", "  ") == nil {
		body = pretty.Bytes()
	}
	return strings.Split(string(body), "\n")
}
