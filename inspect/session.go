package inspect

import (
	"fmt"
	"hash/fnv"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seam-dev/seam/tape"
)

// ExchangeRef names one exchange of one capture.
type ExchangeRef struct {
	Capture string `json:"capture"`
	Ex      int    `json:"ex"`
}

// String renders the reference as "capture.ndjson#3".
func (r ExchangeRef) String() string { return filepath.Base(r.Capture) + "#" + strconv.Itoa(r.Ex) }

// SessionRef says where an exchange stands in its session.
type SessionRef struct {
	// ID is the session's id (Session.ID).
	ID string `json:"id"`
	// Turn is the exchange's place in the session, from 1, in the order
	// the exchanges were read.
	Turn int `json:"turn"`
	// Parent is the exchange whose history, request and reply, this
	// request extends (or, when it rewrites history, the one it shares
	// the most with).
	Parent *ExchangeRef `json:"parent,omitempty"`
	// Repeats is set when the request's history is exactly an earlier
	// exchange's: a retry (same session) or the conversation started
	// again (a new session, when the earlier one completed).
	Repeats *ExchangeRef `json:"repeats,omitempty"`
	// Messages is how many messages the request's history holds.
	Messages int `json:"messages"`
	// Continues is the previous_response_id of a Responses request whose
	// response is in none of the captures read.
	Continues string `json:"continues,omitempty"`
}

// Session is a conversation: exchanges whose request histories extend one
// another, across the captures read, with its totals.
type Session struct {
	// ID is short and stable: the same captures give the same ids.
	ID string `json:"id"`
	// Exchanges lists the session's exchanges in the order they were read
	// (their turns); the first one started the session.
	Exchanges []ExchangeRef `json:"exchanges"`
	Turns     int           `json:"turns"`
	// ToolCalls counts the tool calls the replies made.
	ToolCalls int `json:"tool_calls"`
	// TokensIn and TokensOut add up the usage the turns report;
	// UsageTurns counts the turns that report usage.
	TokensIn   int `json:"tokens_in"`
	TokensOut  int `json:"tokens_out"`
	UsageTurns int `json:"usage_turns"`
	// Start is when its first request was sent and End when its last
	// response ended, from the capture headers' start times; zero when
	// the captures do not say (imports). Dur is End - Start, -1 unknown.
	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end,omitzero"`
	Dur   int64     `json:"duration_ns"`
	// Failed counts turns whose response did not end in success.
	Failed int `json:"failed"`
	// Rewrites counts the turns whose request rewrote the history instead
	// of extending it (session.turn-dropped, session.turn-edited).
	Rewrites int `json:"rewrites"`
	// Models lists the models the turns asked for, in first-use order.
	Models []string `json:"models,omitempty"`
}

// Sessions links exchanges into sessions as they are inspected, across
// captures: give the same Sessions to every Inspect or Inspector call
// (Options.Sessions), in the order the exchanges happened. It holds, per
// exchange, its place in a tree of message fingerprints shared by the
// histories that extend one another, not the messages. It is not safe for
// concurrent use.
//
// An exchange's history is its request's messages: the system prompt (or
// Responses instructions) first, tool calls and tool results included;
// a Responses request with previous_response_id continues the history of
// the exchange that gave that response. A request extends an earlier
// exchange when it starts with that exchange's history followed by its
// reply (the assistant message its response assembled to, as clients send
// it back). It joins that exchange's session; a request sharing no more
// than its system prompt with any earlier one starts a session.
//
// A request that shares more of an earlier history than the exchange it
// extends, then departs from it, rewrites history: when it leaves out
// messages of that history and goes on with the ones after them (a tool
// result lost, a turn skipped), session.turn-dropped; when it changes or
// reorders a message, session.turn-edited. A user who edits an earlier
// message in a chat client gets turn-edited too: it says what changed.
type Sessions struct {
	root   *hnode
	byResp map[string]*hnode
	turns  map[ExchangeRef]*turn
	list   []*Session
	ids    map[string]bool
	seq    int
}

// NewSessions returns an empty Sessions.
func NewSessions() *Sessions {
	return &Sessions{root: &hnode{}, byResp: map[string]*hnode{}, turns: map[ExchangeRef]*turn{}, ids: map[string]bool{}}
}

// List returns the sessions found so far, in the order they started.
func (s *Sessions) List() []*Session { return s.list }

// Of returns the link of an exchange already inspected, or nil.
func (s *Sessions) Of(r ExchangeRef) *SessionRef {
	if t := s.turns[r]; t != nil {
		return t.link
	}
	return nil
}

// hnode is one message in the tree of histories: the path from the root
// to it is a history.
type hnode struct {
	parent   *hnode
	depth    int
	msg      histMsg
	children map[uint64]*hnode
	// via is the latest turn whose history (or reply) passes through the
	// node, req the latest whose request ends at it and reply the latest
	// whose reply is it.
	via, req, reply *turn
}

func (n *hnode) child(h uint64) *hnode {
	if n.children == nil {
		return nil
	}
	return n.children[h]
}

// turn is one linked exchange.
type turn struct {
	ref     ExchangeRef
	seq     int
	session *Session
	link    *SessionRef
	// last is the node its path ends at: its reply when it has one.
	last *hnode
	// ok is set when the response ended in success with a reply.
	ok bool
	// counted is what it added to its session's totals.
	counted turnTotals
	// findings are the ones linking it produced, given again on a relink.
	findings []sessionFinding
}

// turnTotals is what one turn adds to its session.
type turnTotals struct {
	toolCalls, in, out int
	usage, failed      bool
	rewrite            bool
}

// sessionFinding is a rewrite found while linking: messages left out
// (dropped) or one changed.
type sessionFinding struct {
	dropped       bool
	msg, evidence string
}

// turnInput is what linking reads of an inspected exchange.
type turnInput struct {
	ref      ExchangeRef
	history  []histMsg
	prevResp string
	reply    []histMsg
	respID   string
	ok       bool
	model    string
	totals   turnTotals
	// start and end are wall-clock times, zero when unknown.
	start, end time.Time
}

// link places one exchange in its session and returns where it stands and
// the rewrites found. An exchange linked before (a followed capture that
// grew) keeps its place; its reply and totals are updated.
func (s *Sessions) link(in turnInput) (*SessionRef, []sessionFinding) {
	if t := s.turns[in.ref]; t != nil {
		s.relink(t, in)
		return t.link, t.findings
	}
	s.seq++
	t := &turn{ref: in.ref, seq: s.seq, ok: in.ok}
	t.link = &SessionRef{Messages: len(in.history)}
	start := s.root
	if in.prevResp != "" {
		if n := s.byResp[in.prevResp]; n != nil {
			start = n
		} else {
			t.link.Continues = strings.Clone(in.prevResp)
		}
	}
	if start != s.root {
		// Instructions sent again with previous_response_id apply to this
		// response only: the history continues after the earlier reply.
		for len(in.history) > 0 && in.history[0].role == "system" {
			in.history = in.history[1:]
		}
		t.link.Messages = start.depth + len(in.history)
	}

	// Walk the history down the tree as far as earlier histories go.
	node, lastReply := start, (*hnode)(nil)
	if start.reply != nil {
		lastReply = start
	}
	i := 0
	for ; i < len(in.history); i++ {
		c := node.child(in.history[i].hash)
		if c == nil {
			break
		}
		node = c
		if c.reply != nil {
			lastReply = c
		}
	}
	need := start.depth + firstTurn(in.history)
	if start != s.root {
		need = start.depth // continuing a known response is enough
	}
	var sess *Session
	if r := node.req; r != nil && i == len(in.history) {
		t.link.Repeats = &r.ref // a retry, or the conversation started again
	}
	switch {
	case lastReply != nil:
		p := lastReply.reply
		sess, t.link.Parent = p.session, &p.ref
	case node.depth >= need && t.link.Repeats != nil && node.req.ok:
		// The same first request as one that completed: the conversation
		// started again, a new session.
	case node.depth >= need && node.via != nil:
		sess = node.via.session
	}
	if i < len(in.history) && len(node.children) > 0 && node.depth >= need {
		if f, a, ok := s.rewrite(node, in.history[i:], in.ref); ok {
			t.findings = append(t.findings, f)
			t.counted.rewrite = true
			if sess == nil {
				sess, t.link.Parent = a.session, &a.ref
			}
		}
	}
	if sess == nil {
		sess = s.newSession(in.ref)
	}
	t.session = sess
	sess.Exchanges = append(sess.Exchanges, in.ref)
	sess.Turns++
	t.link.ID, t.link.Turn = sess.ID, sess.Turns
	if in.model != "" && !slices.Contains(sess.Models, in.model) {
		sess.Models = append(sess.Models, strings.Clone(in.model))
	}

	// Register the history and the reply.
	node = start
	for _, m := range in.history {
		node = node.add(m)
		node.via = t
	}
	node.req = t
	t.last = node
	s.turns[in.ref] = t
	s.addReply(t, in)
	s.count(t, in)
	return t.link, t.findings
}

// relink updates a turn linked before with what its exchange says now.
func (s *Sessions) relink(t *turn, in turnInput) {
	sess := t.session
	c := t.counted
	sess.ToolCalls -= c.toolCalls
	sess.TokensIn -= c.in
	sess.TokensOut -= c.out
	if c.usage {
		sess.UsageTurns--
	}
	if c.failed {
		sess.Failed--
	}
	if c.rewrite {
		sess.Rewrites--
	}
	t.ok = in.ok
	if t.last.reply != t {
		s.addReply(t, in)
	}
	s.count(t, in)
}

// addReply registers the turn's reply after its request history.
func (s *Sessions) addReply(t *turn, in turnInput) {
	if len(in.reply) == 0 {
		return
	}
	node := t.last
	for _, m := range in.reply {
		node = node.add(m)
		node.via = t
	}
	node.reply = t
	t.last = node
	if in.respID != "" {
		s.byResp[strings.Clone(in.respID)] = node
	}
}

// add returns n's child for message m, adding it when there is none.
func (n *hnode) add(m histMsg) *hnode {
	if c := n.child(m.hash); c != nil {
		return c
	}
	c := &hnode{parent: n, depth: n.depth + 1, msg: m}
	if n.children == nil {
		n.children = map[uint64]*hnode{}
	}
	n.children[m.hash] = c
	return c
}

// count adds the turn's figures to its session.
func (s *Sessions) count(t *turn, in turnInput) {
	sess := t.session
	c := in.totals
	c.rewrite = t.counted.rewrite
	t.counted = c
	sess.ToolCalls += c.toolCalls
	sess.TokensIn += c.in
	sess.TokensOut += c.out
	if c.usage {
		sess.UsageTurns++
	}
	if c.failed {
		sess.Failed++
	}
	if c.rewrite {
		sess.Rewrites++
	}
	if !in.start.IsZero() && (sess.Start.IsZero() || in.start.Before(sess.Start)) {
		sess.Start = in.start
	}
	if in.end.After(sess.End) {
		sess.End = in.end
	}
	sess.Dur = -1
	if !sess.Start.IsZero() && !sess.End.IsZero() {
		sess.Dur = int64(sess.End.Sub(sess.Start))
	}
}

// newSession starts a session at exchange r, with an id made from its
// capture's file name and exchange number.
func (s *Sessions) newSession(r ExchangeRef) *Session {
	h := fnv.New32a()
	h.Write([]byte(r.String()))
	id := fmt.Sprintf("s%08x", h.Sum32())
	for k := 2; s.ids[id]; k++ {
		h.Write([]byte{byte(k)})
		id = fmt.Sprintf("s%08x", h.Sum32())
	}
	s.ids[id] = true
	sess := &Session{ID: id, Dur: -1}
	s.list = append(s.list, sess)
	return sess
}

// latestChild returns the latest turn whose history goes on past n.
func latestChild(n *hnode) *turn {
	var best *turn
	for _, c := range n.children {
		if c.via != nil && (best == nil || c.via.seq > best.seq) {
			best = c.via
		}
	}
	return best
}

// pathFrom returns t's history (its reply included) below node n.
func pathFrom(n *hnode, t *turn) []histMsg {
	var out []histMsg
	for m := t.last; m != nil && m.depth > n.depth; m = m.parent {
		out = append(out, m.msg)
	}
	slices.Reverse(out)
	return out
}

// rewrite decides whether rest, the part of a request's history after
// node where it departs from every earlier history, rewrites one of them
// rather than starting a branch of its own. It does when rest holds a
// message that an earlier history has after its first message below node
// (a reply given, or a result sent, only once that first message was
// there): the request carries what came after a message it changed or
// left out. Another tool result or user message, going on with new
// messages only, is a branch (a retry with other results, an edited
// prompt): not a finding.
func (s *Sessions) rewrite(node *hnode, rest []histMsg, self ExchangeRef) (sessionFinding, *turn, bool) {
	ours := make(map[uint64]int, len(rest))
	for i, m := range rest {
		if _, ok := ours[m.hash]; !ok {
			ours[m.hash] = i
		}
	}
	var kids []*turn
	for _, c := range node.children {
		if c.via != nil {
			kids = append(kids, c.via)
		}
	}
	slices.SortFunc(kids, func(a, b *turn) int { return b.seq - a.seq })
	for _, a := range kids {
		theirs := pathFrom(node, a)
		if !slices.ContainsFunc(theirs[min(1, len(theirs)):], func(m histMsg) bool { _, ok := ours[m.hash]; return ok }) {
			continue
		}
		return describeRewrite(node.depth, rest, theirs, ours, a, self), a, true
	}
	return sessionFinding{}, nil, false
}

// describeRewrite words a rewrite found at message at: messages of theirs
// left out (session.turn-dropped), or one changed, inserted or moved
// (session.turn-edited).
func describeRewrite(at int, rest, theirs []histMsg, ours map[uint64]int, a *turn, self ExchangeRef) sessionFinding {
	who := a.ref.String()
	if a.ref.Capture == self.Capture {
		who = "exchange " + strconv.Itoa(a.ref.Ex)
	}
	x0, y0 := theirs[0], rest[0]
	j := slices.IndexFunc(theirs, func(m histMsg) bool { return m.hash == y0.hash })
	if j > 0 && !slices.ContainsFunc(theirs[:j], func(m histMsg) bool { _, ok := ours[m.hash]; return ok }) {
		// rest goes on with a later message of theirs, and none of the
		// ones before it comes anywhere in rest: they were left out.
		what := x0.describe(at)
		if j > 1 {
			what = fmt.Sprintf("messages %d to %d (%s first)", at, at+j-1, x0.what)
		}
		return sessionFinding{dropped: true, evidence: x0.text,
			msg: fmt.Sprintf("the history leaves out %s that %s had, and goes on with the messages after it", what, who)}
	}
	var msg string
	switch {
	case ours[x0.hash] > 0:
		msg = fmt.Sprintf("%s is inserted before the %s that %s had there", y0.describe(at), x0.what, who)
	case j > 0:
		msg = fmt.Sprintf("%s comes later in %s's history: messages were reordered", y0.describe(at), who)
	case y0.role == x0.role:
		msg = fmt.Sprintf("%s differs from the one %s had there", y0.describe(at), who)
	default:
		msg = fmt.Sprintf("%s stands where %s had a %s", y0.describe(at), who, x0.what)
	}
	return sessionFinding{evidence: y0.text, msg: msg}
}

// sessionInput gathers what linking reads of an inspected exchange.
func sessionInput(c *exCtx) (turnInput, bool) {
	if c.req == nil || len(c.req.Messages) == 0 && c.req.PrevResponse == "" {
		return turnInput{}, false
	}
	in := turnInput{ref: ExchangeRef{Capture: c.name, Ex: c.x.Ex}, history: historyOf(c.req), prevResp: c.req.PrevResponse, model: c.rep.Model}
	if v := c.view; v != nil {
		in.reply = replyOf(v.Message)
		in.respID = v.Message.ID
		in.ok = len(in.reply) > 0 && v.Status < 400 && (v.Outcome == "" || v.Outcome.Success()) && v.Message.Error == ""
		in.totals.failed = !in.ok && (v.Status >= 400 || (v.Outcome != "" && !v.Outcome.Success()) || v.Message.Error != "")
		if len(v.Message.Choices) > 0 {
			in.totals.toolCalls = len(v.Message.Choices[0].ToolCalls)
		}
	}
	if m := c.rep.Metrics; m != nil && (m.TokensIn > 0 || m.TokensOut > 0) {
		in.totals.in, in.totals.out, in.totals.usage = m.TokensIn, m.TokensOut, true
	}
	if !c.started.IsZero() && c.x.Request != nil {
		in.start = c.started.Add(time.Duration(c.x.Request.T))
		end := int64(-1)
		for _, sd := range []*tape.SideData{&c.x.Upstream, &c.x.Client} {
			if sd.End != nil {
				end = max(end, sd.End.T)
			}
		}
		if end >= 0 {
			in.end = c.started.Add(time.Duration(end))
		}
	}
	return in, true
}

// runSession links the exchange into its session when Options.Sessions is
// set, and reports the rewrites linking found.
func runSession(c *exCtx) {
	s := c.opts.Sessions
	if s == nil {
		return
	}
	in, ok := sessionInput(c)
	if !ok {
		return
	}
	ref, fs := s.link(in)
	c.rep.Session = ref
	for _, f := range fs {
		if f.dropped {
			c.emit("session.turn-dropped", c.reqPointer(), f.evidence, f.msg)
		} else {
			c.emit("session.turn-edited", c.reqPointer(), f.evidence, f.msg)
		}
	}
}
