package session

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
)

// Linker links exchanges into sessions as they are read, across captures:
// give the same Linker every exchange (Link), in the order the exchanges
// happened. It holds, per exchange, its place in a tree of message
// fingerprints shared by the histories that extend one another, not the
// messages. It is not safe for concurrent use.
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
// extends, then departs from it, rewrites history (Rewrite): it leaves out
// messages of that history and goes on with the ones after them (a tool
// result lost, a turn skipped: Dropped), or it changes or reorders a
// message. A user who edits an earlier message in a chat client rewrites
// history too: the Rewrite says what changed.
type Linker struct {
	root   *hnode
	byResp map[string]*hnode
	turns  map[ExchangeRef]*turn
	list   []*Session
	ids    map[string]bool
	seq    int
}

// NewLinker returns a Linker that has linked nothing.
func NewLinker() *Linker {
	return &Linker{root: &hnode{}, byResp: map[string]*hnode{}, turns: map[ExchangeRef]*turn{}, ids: map[string]bool{}}
}

// List returns the sessions found so far, in the order they started.
func (l *Linker) List() []*Session { return l.list }

// Of returns the link of an exchange already linked, or nil.
func (l *Linker) Of(r ExchangeRef) *Ref {
	if t := l.turns[r]; t != nil {
		return t.link
	}
	return nil
}

// hnode is one message in the tree of histories: the path from the root
// to it is a history.
type hnode struct {
	parent   *hnode
	depth    int
	msg      Message
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

// add returns n's child for message m, adding it when there is none.
func (n *hnode) add(m Message) *hnode {
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

// turn is one linked exchange.
type turn struct {
	ref     ExchangeRef
	seq     int
	session *Session
	link    *Ref
	// last is the node its path ends at: its reply when it has one.
	last *hnode
	// ok is set when the response ended in success with a reply.
	ok bool
	// counted is what it added to its session's totals, rewrote whether
	// it rewrote history.
	counted Totals
	rewrote bool
	// rewrites are the ones linking found, given again on a relink.
	rewrites []Rewrite
}

// Link places one exchange in its session and returns where it stands and
// the rewrites found. An exchange linked before (a followed capture that
// grew) keeps its place; its reply and totals are updated.
func (l *Linker) Link(in Turn) (*Ref, []Rewrite) {
	if t := l.turns[in.Ref]; t != nil {
		l.relink(t, in)
		return t.link, t.rewrites
	}
	l.seq++
	t := &turn{ref: in.Ref, seq: l.seq, ok: in.OK}
	t.link = &Ref{Messages: len(in.History)}
	start := l.start(t, &in)
	sess := l.find(t, start, in.History)
	if sess == nil {
		sess = l.newSession(in.Ref)
	}
	t.session = sess
	sess.Exchanges = append(sess.Exchanges, in.Ref)
	sess.Turns++
	t.link.ID, t.link.Turn = sess.ID, sess.Turns
	if in.Model != "" && !slices.Contains(sess.Models, in.Model) {
		sess.Models = append(sess.Models, strings.Clone(in.Model))
	}

	// Register the history and the reply.
	node := start
	for _, m := range in.History {
		node = node.add(m)
		node.via = t
	}
	node.req = t
	t.last = node
	l.turns[in.Ref] = t
	l.addReply(t, in)
	l.count(t, in)
	return t.link, t.rewrites
}

// start returns the node a new turn's history hangs from: the reply of
// the response a Responses request continues when that response was
// linked (the history then holds what is new since it, the instructions
// sent again left out), else the root.
func (l *Linker) start(t *turn, in *Turn) *hnode {
	start := l.root
	if in.PrevResponse != "" {
		if n := l.byResp[in.PrevResponse]; n != nil {
			start = n
		} else {
			t.link.Continues = strings.Clone(in.PrevResponse)
		}
	}
	if start != l.root {
		// Instructions sent again with previous_response_id apply to this
		// response only: the history continues after the earlier reply.
		for len(in.History) > 0 && in.History[0].role == "system" {
			in.History = in.History[1:]
		}
		t.link.Messages = start.depth + len(in.History)
	}
	return start
}

// find walks a new turn's history h down the tree from start as far as
// earlier histories go, sets the turn's parent, what it repeats and the
// rewrite it makes, and returns the session it joins (nil: a new one).
func (l *Linker) find(t *turn, start *hnode, h []Message) *Session {
	node, lastReply := start, (*hnode)(nil)
	if start.reply != nil {
		lastReply = start
	}
	i := 0
	for ; i < len(h); i++ {
		c := node.child(h[i].hash)
		if c == nil {
			break
		}
		node = c
		if c.reply != nil {
			lastReply = c
		}
	}
	need := start.depth + firstTurn(h)
	if start != l.root {
		need = start.depth // continuing a known response is enough
	}
	var sess *Session
	if r := node.req; r != nil && i == len(h) {
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
	if i < len(h) && len(node.children) > 0 && node.depth >= need {
		if f, a, ok := l.rewrite(node, h[i:], t.ref); ok {
			t.rewrites = append(t.rewrites, f)
			t.rewrote = true
			if sess == nil {
				sess, t.link.Parent = a.session, &a.ref
			}
		}
	}
	return sess
}

// relink updates a turn linked before with what its exchange says now.
func (l *Linker) relink(t *turn, in Turn) {
	sess := t.session
	c := t.counted
	sess.ToolCalls -= c.ToolCalls
	sess.TokensIn -= c.TokensIn
	sess.TokensOut -= c.TokensOut
	if c.Usage {
		sess.UsageTurns--
	}
	if c.Failed {
		sess.Failed--
	}
	if t.rewrote {
		sess.Rewrites--
	}
	t.ok = in.OK
	if t.last.reply != t {
		l.addReply(t, in)
	}
	l.count(t, in)
}

// addReply registers the turn's reply after its request history.
func (l *Linker) addReply(t *turn, in Turn) {
	if len(in.Reply) == 0 {
		return
	}
	node := t.last
	for _, m := range in.Reply {
		node = node.add(m)
		node.via = t
	}
	node.reply = t
	t.last = node
	if in.ResponseID != "" {
		l.byResp[strings.Clone(in.ResponseID)] = node
	}
}

// count adds the turn's figures to its session.
func (l *Linker) count(t *turn, in Turn) {
	sess := t.session
	c := in.Totals
	t.counted = c
	sess.ToolCalls += c.ToolCalls
	sess.TokensIn += c.TokensIn
	sess.TokensOut += c.TokensOut
	if c.Usage {
		sess.UsageTurns++
	}
	if c.Failed {
		sess.Failed++
	}
	if t.rewrote {
		sess.Rewrites++
	}
	if !in.Start.IsZero() && (sess.Start.IsZero() || in.Start.Before(sess.Start)) {
		sess.Start = in.Start
	}
	if in.End.After(sess.End) {
		sess.End = in.End
	}
	sess.Dur = -1
	if !sess.Start.IsZero() && !sess.End.IsZero() {
		sess.Dur = int64(sess.End.Sub(sess.Start))
	}
}

// newSession starts a session at exchange r, with an id made from its
// capture's file name and exchange number.
func (l *Linker) newSession(r ExchangeRef) *Session {
	h := fnv.New32a()
	h.Write([]byte(r.String()))
	id := fmt.Sprintf("s%08x", h.Sum32())
	for k := 2; l.ids[id]; k++ {
		h.Write([]byte{byte(k)})
		id = fmt.Sprintf("s%08x", h.Sum32())
	}
	l.ids[id] = true
	sess := &Session{ID: id, Dur: -1}
	l.list = append(l.list, sess)
	return sess
}
