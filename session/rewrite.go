package session

import (
	"fmt"
	"slices"
	"strconv"
)

// pathFrom returns t's history (its reply included) below node n.
func pathFrom(n *hnode, t *turn) []Message {
	var out []Message
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
// prompt): not a rewrite.
func (l *Linker) rewrite(node *hnode, rest []Message, self ExchangeRef) (Rewrite, *turn, bool) {
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
		if !slices.ContainsFunc(theirs[min(1, len(theirs)):], func(m Message) bool { _, ok := ours[m.hash]; return ok }) {
			continue
		}
		return describeRewrite(node.depth, rest, theirs, ours, a, self), a, true
	}
	return Rewrite{}, nil, false
}

// describeRewrite words a rewrite found at message at: messages of theirs
// left out (Dropped), or one changed, inserted or moved.
func describeRewrite(at int, rest, theirs []Message, ours map[uint64]int, a *turn, self ExchangeRef) Rewrite {
	who := a.ref.String()
	if a.ref.Capture == self.Capture {
		who = "exchange " + strconv.Itoa(a.ref.Ex)
	}
	x0, y0 := theirs[0], rest[0]
	j := slices.IndexFunc(theirs, func(m Message) bool { return m.hash == y0.hash })
	if j > 0 && !slices.ContainsFunc(theirs[:j], func(m Message) bool { _, ok := ours[m.hash]; return ok }) {
		// rest goes on with a later message of theirs, and none of the
		// ones before it comes anywhere in rest: they were left out.
		what := x0.describe(at)
		if j > 1 {
			what = fmt.Sprintf("messages %d to %d (%s first)", at, at+j-1, x0.what)
		}
		return Rewrite{Dropped: true, Evidence: x0.text,
			Message: fmt.Sprintf("the history leaves out %s that %s had, and goes on with the messages after it", what, who)}
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
	return Rewrite{Evidence: y0.text, Message: msg}
}
