package inspect

import (
	"strconv"
	"strings"
)

// runRequestLegs reports what the proxy under test changed in the request
// (a sandwich recording): a rewritten history, changed tools, another
// model, other parameters.
func runRequestLegs(c *exCtx) {
	d := c.rep.RequestDiff
	if d == nil || d.Equal() {
		return
	}
	p := c.reqPointer()
	if d.Rewritten {
		var ev []string
		for _, m := range d.Messages {
			if m.Op != "added" && len(ev) < 3 {
				ev = append(ev, m.Op+" client message "+strconv.Itoa(m.ClientIndex)+" ("+m.ClientRole+")")
			}
		}
		c.emit("req.history-rewritten", p, strings.Join(ev, "; "),
			"the proxy rewrote the conversation history instead of passing it through: "+strconv.Itoa(d.ClientMessages)+" messages from the client, "+strconv.Itoa(d.UpstreamMessages)+" upstream")
	}
	if n := len(d.ToolsAdded) + len(d.ToolsRemoved) + len(d.ToolsChanged); n > 0 {
		var ev []string
		for _, t := range []struct {
			what  string
			names []string
		}{{"removed", d.ToolsRemoved}, {"added", d.ToolsAdded}, {"schema changed", d.ToolsChanged}} {
			if len(t.names) > 0 {
				ev = append(ev, t.what+": "+strings.Join(t.names, ", "))
			}
		}
		c.emit("req.tools-changed", p, strings.Join(ev, "; "), "the proxy sent other tools upstream than the client declared")
	}
	if d.Model != nil {
		c.emit("req.model-changed", p, orDash(d.Model.Client)+" → "+orDash(d.Model.Upstream), "the proxy asked the upstream for another model than the client did")
	}
	if len(d.Params) > 0 {
		var names []string
		for _, pc := range d.Params {
			names = append(names, pc.Name)
		}
		c.emit("req.params-changed", p, strings.Join(names, ", "), "the proxy changed "+strconv.Itoa(len(d.Params))+" request parameter(s)")
	}
}
