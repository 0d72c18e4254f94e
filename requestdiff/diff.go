package requestdiff

import (
	"bytes"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/internal/jsonvalue"
	"github.com/seam-dev/seam/request"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible"
	"github.com/tidwall/gjson"
)

// Diff is what differs between the two request legs of a sandwich
// recording: the request the client sent and the one the proxy under test
// sent upstream.
// Both are read in the normalized form of every request protocol (a system
// prompt or Responses instructions count as the first message), so a proxy
// that converts a Responses request into a Chat Completions one is compared
// by what it carried, not by its field names.
type Diff struct {
	// Identical is set when the bodies are the same bytes.
	Identical bool `json:"identical"`
	// URL is set when the proxy sent the request to another path.
	URL *Change `json:"url,omitempty"`
	// Model is set when the model differs.
	Model *Change `json:"model,omitempty"`
	// Params lists the other top-level parameters that differ, by name
	// (synonyms across protocols, such as max_output_tokens and max_tokens,
	// under one name).
	Params []ParamChange `json:"params,omitempty"`
	// ToolsAdded, ToolsRemoved and ToolsChanged name the tools the proxy
	// added, removed, or sent with another parameter schema.
	ToolsAdded   []string `json:"tools_added,omitempty"`
	ToolsRemoved []string `json:"tools_removed,omitempty"`
	ToolsChanged []string `json:"tools_changed,omitempty"`
	// ClientMessages and UpstreamMessages count the messages of each leg.
	ClientMessages   int `json:"client_messages"`
	UpstreamMessages int `json:"upstream_messages"`
	// Messages lists the messages that differ, in order.
	Messages []MessageChange `json:"messages,omitempty"`
	// Rewritten is set when the proxy changed, dropped or reordered
	// messages of the client's history rather than passing it through
	// (messages it only added are not a rewrite).
	Rewritten bool `json:"rewritten"`
}

// Change is a value on the client's leg and on the upstream leg.
type Change struct {
	Client   string `json:"client"`
	Upstream string `json:"upstream"`
}

// ParamChange is one top-level request parameter that differs; an absent
// side is "".
type ParamChange struct {
	Name     string `json:"name"`
	Client   string `json:"client"`
	Upstream string `json:"upstream"`
}

// MessageChange is one message that differs between the legs. Op is
// "removed" (the client's message ClientIndex did not go upstream), "added"
// (upstream message UpstreamIndex is not the client's) or "changed" (the
// two differ: Role or content); the other index is -1 when it does not
// apply.
type MessageChange struct {
	Op            string `json:"op"`
	ClientIndex   int    `json:"client_index"`
	UpstreamIndex int    `json:"upstream_index"`
	ClientRole    string `json:"client_role,omitempty"`
	UpstreamRole  string `json:"upstream_role,omitempty"`
	// Client and Upstream are short excerpts of the two messages.
	Client   string `json:"client,omitempty"`
	Upstream string `json:"upstream,omitempty"`
}

// Equal reports whether the legs carry the same request (same model,
// parameters, tools and messages), whatever their bytes.
func (d *Diff) Equal() bool {
	return d.Identical || d.URL == nil && d.Model == nil && len(d.Params) == 0 && len(d.ToolsAdded)+len(d.ToolsRemoved)+len(d.ToolsChanged) == 0 && len(d.Messages) == 0
}

// Lines renders the diff for a report, one line each: what changed, or
// that the request went through unchanged.
func (d *Diff) Lines() []string {
	if d.Identical {
		return []string{"the proxy sent the client's request upstream byte for byte"}
	}
	if d.Equal() {
		return []string{"the proxy re-encoded the request but changed nothing in it"}
	}
	var out []string
	if d.URL != nil {
		out = append(out, "url: "+d.URL.Client+" → "+d.URL.Upstream)
	}
	if d.Model != nil {
		out = append(out, "model: "+orDash(d.Model.Client)+" → "+orDash(d.Model.Upstream))
	}
	for _, p := range d.Params {
		out = append(out, "param "+p.Name+": "+orNone(p.Client)+" → "+orNone(p.Upstream))
	}
	if len(d.ToolsAdded) > 0 {
		out = append(out, "tools added: "+strings.Join(d.ToolsAdded, ", "))
	}
	if len(d.ToolsRemoved) > 0 {
		out = append(out, "tools removed: "+strings.Join(d.ToolsRemoved, ", "))
	}
	if len(d.ToolsChanged) > 0 {
		out = append(out, "tool schemas changed: "+strings.Join(d.ToolsChanged, ", "))
	}
	if len(d.Messages) > 0 {
		head := "messages: " + strconv.Itoa(d.ClientMessages) + " from the client, " + strconv.Itoa(d.UpstreamMessages) + " upstream"
		if d.Rewritten {
			head += "; the history was rewritten"
		}
		out = append(out, head)
		for _, m := range d.Messages {
			switch m.Op {
			case "removed":
				out = append(out, "  - client ["+strconv.Itoa(m.ClientIndex)+"] "+m.ClientRole+" dropped: "+m.Client)
			case "added":
				out = append(out, "  + upstream ["+strconv.Itoa(m.UpstreamIndex)+"] "+m.UpstreamRole+" added: "+m.Upstream)
			default:
				role := m.ClientRole
				if m.ClientRole != m.UpstreamRole {
					role = m.ClientRole + " → " + m.UpstreamRole
				}
				out = append(out, "  ~ client ["+strconv.Itoa(m.ClientIndex)+"] → upstream ["+strconv.Itoa(m.UpstreamIndex)+"] "+role+": "+m.Client+" → "+m.Upstream)
			}
		}
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// Compare compares the client's request, a as parsed, with the one
// the proxy under test sent upstream, or returns nil when either was not
// recorded.
func Compare(client, upstream *tape.Request, a *request.Request) *Diff {
	if client == nil || upstream == nil {
		return nil
	}
	d := &Diff{Identical: bytes.Equal(client.Body, upstream.Body) && client.URL == upstream.URL}
	if d.Identical {
		d.ClientMessages, d.UpstreamMessages = len(a.Messages), len(a.Messages)
		return d
	}
	if pa, pb := pathOf(client.URL), pathOf(upstream.URL); pa != pb {
		d.URL = &Change{Client: pa, Upstream: pb}
	}
	b := request.Parse(upstream.Body)
	if a.Model != b.Model {
		d.Model = &Change{Client: a.Model, Upstream: b.Model}
	}
	d.Params = diffParams(client.Body, upstream.Body)
	for _, name := range sortedToolNames(a.Tools) {
		tb, ok := b.Tools[name]
		switch {
		case !ok:
			d.ToolsRemoved = append(d.ToolsRemoved, name)
		case !jsonvalue.SameText(a.Tools[name].Schema, tb.Schema):
			d.ToolsChanged = append(d.ToolsChanged, name)
		}
	}
	for _, name := range sortedToolNames(b.Tools) {
		if _, ok := a.Tools[name]; !ok {
			d.ToolsAdded = append(d.ToolsAdded, name)
		}
	}
	d.ClientMessages, d.UpstreamMessages = len(a.Messages), len(b.Messages)
	d.Messages, d.Rewritten = diffMessages(a.Messages, b.Messages)
	return d
}

func pathOf(url string) string {
	p, _, _ := strings.Cut(url, "?")
	return p
}

func sortedToolNames(m map[string]*request.Tool) []string { return slices.Sorted(maps.Keys(m)) }

// requestBodyKeys are the top-level request fields Compare compares
// as messages, tools or model rather than as parameters.
var requestBodyKeys = map[string]bool{"model": true, "messages": true, "input": true, "tools": true, "system": true, "instructions": true}

// paramName gives a request parameter the name it has across protocols.
func paramName(k string) string {
	switch k {
	case "max_output_tokens", "max_completion_tokens":
		return "max_tokens"
	}
	return k
}

// diffParams compares the top-level parameters of two request bodies.
func diffParams(a, b []byte) []ParamChange {
	pa, pb := params(a), params(b)
	names := append(slices.Collect(maps.Keys(pa)), slices.Collect(maps.Keys(pb))...)
	slices.Sort(names)
	names = slices.Compact(names)
	var out []ParamChange
	for _, k := range names {
		va, vb := pa[k], pb[k]
		if jsonvalue.SameText(va, vb) {
			continue
		}
		out = append(out, ParamChange{Name: k, Client: excerpt.Clip(va, 120), Upstream: excerpt.Clip(vb, 120)})
	}
	return out
}

// params returns a request body's top-level parameters as raw JSON, by
// their cross-protocol name.
func params(body []byte) map[string]string {
	out := map[string]string{}
	if !gjson.ValidBytes(body) {
		return out
	}
	gjson.ParseBytes(body).ForEach(func(k, v gjson.Result) bool {
		if !requestBodyKeys[k.String()] {
			out[paramName(k.String())] = v.Raw
		}
		return true
	})
	return out
}

// maxAlign bounds the message alignment's table (client × upstream
// messages); longer histories are compared position by position.
const maxAlign = 1 << 20

// diffMessages aligns two message histories (longest common subsequence
// of equal messages) and lists what differs: a client message with no
// counterpart next to an upstream one with none is a changed message;
// others are removed or added. The history is rewritten when a client
// message was changed, removed or moved.
func diffMessages(a, b []request.Message) ([]MessageChange, bool) {
	n, m := len(a), len(b)
	eq := func(i, j int) bool { return sameMessage(&a[i], &b[j]) }
	var pairs [][2]int // matched (i, j), in order
	if n*m <= maxAlign {
		// lcs[i][j] is the LCS length of a[i:] and b[j:].
		lcs := make([][]int32, n+1)
		for i := range lcs {
			lcs[i] = make([]int32, m+1)
		}
		for i := n - 1; i >= 0; i-- {
			for j := m - 1; j >= 0; j-- {
				if eq(i, j) {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		for i, j := 0, 0; i < n && j < m; {
			switch {
			case eq(i, j):
				pairs = append(pairs, [2]int{i, j})
				i++
				j++
			case lcs[i+1][j] >= lcs[i][j+1]:
				i++
			default:
				j++
			}
		}
	} else {
		for i := 0; i < min(n, m); i++ {
			if eq(i, i) {
				pairs = append(pairs, [2]int{i, i})
			}
		}
	}
	var out []MessageChange
	rewritten := false
	gap := func(i0, i1, j0, j1 int) {
		k := 0
		for ; i0+k < i1 && j0+k < j1; k++ {
			i, j := i0+k, j0+k
			out = append(out, MessageChange{Op: "changed", ClientIndex: i, UpstreamIndex: j, ClientRole: a[i].Role, UpstreamRole: b[j].Role,
				Client: messageExcerpt(&a[i]), Upstream: messageExcerpt(&b[j])})
			rewritten = true
		}
		for i := i0 + k; i < i1; i++ {
			out = append(out, MessageChange{Op: "removed", ClientIndex: i, UpstreamIndex: -1, ClientRole: a[i].Role, Client: messageExcerpt(&a[i])})
			rewritten = true
		}
		for j := j0 + k; j < j1; j++ {
			out = append(out, MessageChange{Op: "added", ClientIndex: -1, UpstreamIndex: j, UpstreamRole: b[j].Role, Upstream: messageExcerpt(&b[j])})
		}
	}
	pi, pj := 0, 0
	for _, p := range pairs {
		gap(pi, p[0], pj, p[1])
		pi, pj = p[0]+1, p[1]+1
	}
	gap(pi, n, pj, m)
	return out, rewritten
}

// sameMessage compares two normalized request messages: role, text, tool
// calls (arguments as JSON values) and the call a tool result answers.
func sameMessage(x, y *request.Message) bool {
	if x.Role != y.Role || x.Text != y.Text || x.ToolCallID != y.ToolCallID || len(x.ToolCalls) != len(y.ToolCalls) {
		return false
	}
	for k := range x.ToolCalls {
		p, q := &x.ToolCalls[k], &y.ToolCalls[k]
		if p.ID != q.ID || p.Name != q.Name || !jsonvalue.SameText(p.Arguments, q.Arguments) {
			return false
		}
	}
	return true
}

// messageExcerpt renders a request message in a few words.
func messageExcerpt(m *request.Message) string {
	var parts []string
	if m.Text != "" {
		parts = append(parts, strconv.Quote(excerpt.Clip(m.Text, 60)))
	}
	for _, tc := range m.ToolCalls {
		parts = append(parts, "call "+tc.Name+"("+excerpt.Clip(tc.Arguments, 40)+")")
	}
	if m.ToolCallID != "" {
		parts = append(parts, "result for "+m.ToolCallID)
	}
	if len(parts) == 0 {
		return "(empty)"
	}
	return strings.Join(parts, " ")
}

// orDash draws s (from a capture) for the terminal, or "-" when empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return visible.String(s)
}
