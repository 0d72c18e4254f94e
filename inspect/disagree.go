package inspect

import (
	"strings"

	"github.com/seam-dev/seam/clients"
	"github.com/seam-dev/seam/protocol"
)

// Disagreement is one field on which clients end up with different values.
type Disagreement struct {
	Field  string        `json:"field"`
	Values []ClientValue `json:"values"`
}

// ClientValue is one client's value for a field.
type ClientValue struct {
	Client string `json:"client"`
	Value  string `json:"value"`
}

// emulateClients runs every client emulator that reads the side's
// protocol over it (package clients).
func emulateClients(s *SideReport) []clients.Result {
	return clients.Emulate(s.ev, s.Message, s.Stream)
}

// disagreements lists the fields on which the clients' results differ.
// Finish reasons are compared by what they mean (finishAgree), as VS Code
// names every normal end "stop". When the request declares tools (the
// client calls them natively, so it is not Obsidian's XML era), Obsidian's
// tool calls count only if it found some in the text: that it ignores
// structured tool calls is its design, not a disagreement on this stream.
func disagreements(rs []clients.Result, p protocol.Protocol, requestTools bool) []Disagreement {
	fields := []struct {
		name string
		get  func(clients.Result) string
		// skip leaves a client out of the comparison of this field.
		skip func(clients.Result) bool
		// agree compares the clients compared; nil wants equal values.
		agree func([]clients.Result) bool
	}{
		{name: "text", get: func(r clients.Result) string { return r.Text }},
		{name: "tool_calls", get: func(r clients.Result) string { return renderCalls(r.ToolCalls) },
			skip: func(r clients.Result) bool {
				return requestTools && r.Client == clients.Obsidian && len(r.XMLCalls) == 0
			}},
		{name: "finish_reason", get: func(r clients.Result) string { return r.FinishReason },
			agree: func(rs []clients.Result) bool { return finishAgree(rs, p) }},
		{name: "error", get: func(r clients.Result) string { return r.Error }},
	}
	var out []Disagreement
	for _, f := range fields {
		vals := make([]ClientValue, 0, len(rs))
		compared := make([]clients.Result, 0, len(rs))
		same := true
		for _, r := range rs {
			vals = append(vals, ClientValue{Client: r.Client, Value: f.get(r)})
			if f.skip != nil && f.skip(r) {
				continue
			}
			if len(compared) > 0 && f.get(r) != f.get(compared[0]) {
				same = false
			}
			compared = append(compared, r)
		}
		if f.agree != nil {
			same = f.agree(compared)
		}
		if !same {
			out = append(out, Disagreement{Field: f.name, Values: vals})
		}
	}
	return out
}

// finishAgree reports whether the clients' finish reasons say the same
// thing: all the same, or all of known classes (finishClass) that share
// one. VS Code reports its own reasons, translated first: "stop" for every
// normal end of a Messages or Responses stream (tool use included), "DONE"
// for an Anthropic refusal, and on a Chat stream "DONE" or "Iteration Done"
// when there was no finish_reason (as if none, like the others see).
func finishAgree(rs []clients.Result, p protocol.Protocol) bool {
	all, raw := -1, ""
	for i, r := range rs {
		fr, class := r.FinishReason, finishClass(r.FinishReason)
		if r.Client == clients.VSCode {
			switch {
			case p == protocol.Chat && (fr == "DONE" || fr == "Iteration Done"):
				fr, class = "", 0
			case p != protocol.Chat && fr == "stop":
				class = finStop | finTools
			case p == protocol.Anthropic && fr == "DONE":
				class = finFilter
			}
		}
		switch {
		case i == 0 && class == 0:
			all, raw = 0, fr
		case i == 0:
			all = class
		case (all == 0) != (class == 0), all == 0 && fr != raw:
			return false
		case all != 0:
			if all &= class; all == 0 {
				return false
			}
		}
	}
	return true
}

func renderCalls(cs []protocol.ToolCall) string {
	var b strings.Builder
	for i, c := range cs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(c.Name)
		b.WriteByte('(')
		b.WriteString(c.Arguments)
		b.WriteByte(')')
		if c.ID != "" {
			b.WriteString(" #" + c.ID)
		}
	}
	return b.String()
}
