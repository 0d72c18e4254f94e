package inspect

import (
	"time"

	"github.com/seam-dev/seam/session"
	"github.com/seam-dev/seam/tape"
)

// sessionInput gathers what linking reads of an inspected exchange: its
// request's history, the reply of the side clients received and its
// figures.
func sessionInput(c *exCtx) (session.Turn, bool) {
	if c.req == nil || len(c.req.Messages) == 0 && c.req.PrevResponse == "" {
		return session.Turn{}, false
	}
	history := c.history
	if history == nil {
		history = session.History(c.req)
	}
	in := session.Turn{Ref: session.ExchangeRef{Capture: c.name, Ex: c.x.Ex}, History: history, PrevResponse: c.req.PrevResponse, Model: c.rep.Model}
	if v := c.view; v != nil {
		in.Reply = session.Reply(v.Message)
		in.ResponseID = v.Message.ID
		in.OK = len(in.Reply) > 0 && v.Status < 400 && (v.Outcome == "" || v.Outcome.Success()) && v.Message.Error == ""
		in.Totals.Failed = !in.OK && (v.Status >= 400 || (v.Outcome != "" && !v.Outcome.Success()) || v.Message.Error != "")
		if len(v.Message.Choices) > 0 {
			in.Totals.ToolCalls = len(v.Message.Choices[0].ToolCalls)
		}
	}
	if m := c.rep.Metrics; m != nil && (m.TokensIn > 0 || m.TokensOut > 0) {
		in.Totals.TokensIn, in.Totals.TokensOut, in.Totals.Usage = m.TokensIn, m.TokensOut, true
	}
	if !c.started.IsZero() && c.x.Request != nil {
		in.Start = c.started.Add(time.Duration(c.x.Request.T))
		end := int64(-1)
		for _, sd := range []*tape.SideData{&c.x.Upstream, &c.x.Client} {
			if sd.End != nil {
				end = max(end, sd.End.T)
			}
		}
		if end >= 0 {
			in.End = c.started.Add(time.Duration(end))
		}
	}
	return in, true
}

// runSession links the exchange into its session when Options.Sessions is
// set, and reports the rewrites linking found: messages left out are
// session.turn-dropped, one changed, inserted or moved
// session.turn-edited.
func runSession(c *exCtx) {
	l := c.opts.Sessions
	if l == nil {
		return
	}
	in, ok := sessionInput(c)
	if !ok {
		return
	}
	ref, rs := l.Link(in)
	c.rep.Session = ref
	for _, r := range rs {
		if r.Dropped {
			c.emit("session.turn-dropped", c.reqPointer(), r.Evidence, r.Message)
		} else {
			c.emit("session.turn-edited", c.reqPointer(), r.Evidence, r.Message)
		}
	}
}
