package inspect

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/internal/jsonvalue"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
)

// The structural comparison of the upstream and client sides: the
// assembled messages compared part by part (tool calls, finish reason,
// usage, error, reasoning, refusal, model) in the normalized form package
// protocol gives every protocol, so that it holds across a converting
// proxy. A tool call the client receives as an Obsidian <use_tool> block in
// its text is the same call as a structured one upstream; one that vanished
// is not. Text keeps its own line diff (diff.upstream-client); hunks that
// only hold calls converted to XML do not count as text changes.

// structCtx holds what the structural comparison of one exchange needs.
type structCtx struct {
	c      *exCtx
	up, cl *SideReport
}

func (s *structCtx) ptr(side *SideReport, ev int) Pointer { return s.c.sidePointer(side, ev) }

// lastEvent is where a part that never came would have been: the side's
// last event.
func lastEvent(side *SideReport) int { return len(side.ev.Events) - 1 }

// orLast returns ev, or the side's last event when ev is unknown.
func orLast(ev int, side *SideReport) int {
	if ev < 0 {
		return lastEvent(side)
	}
	return ev
}

// runStructure compares the assembled upstream and client messages part by
// part and reports what the client lost, gained or got changed.
func runStructure(c *exCtx) {
	up, cl := c.sides[tape.Upstream], c.sides[tape.Client]
	if !comparable(up, cl) {
		return
	}
	s := &structCtx{c: c, up: up, cl: cl}
	a, b := up.Message, cl.Message
	atA, atB := choicesByIndex(a), choicesByIndex(b)
	for _, idx := range choiceIndexes(a, b) {
		ca, cb := atA.get(idx), atB.get(idx)
		s.calls(idx, ca, cb)
		s.finish(idx, a, b, ca, cb)
		if at, peer, ev, msg, ok := s.channel("reasoning", ca.Reasoning, cb.Reasoning, ca.ReasoningBorn, cb.ReasoningBorn); ok {
			c.emitPair("diff.reasoning-changed", at, &peer, ev, choiceLabel(idx)+msg)
		}
		if at, peer, ev, msg, ok := s.channel("refusal", ca.Refusal, cb.Refusal, ca.RefusalBorn, cb.RefusalBorn); ok {
			c.emitPair("diff.refusal-changed", at, &peer, ev, choiceLabel(idx)+msg)
		}
		if idx != 0 && ca.Text != cb.Text {
			// Choice 0's text has its own diff (diff.upstream-client).
			d := DiffTexts(DiffUpstreamClient, "upstream", ca.Text, "client", cb.Text)
			at := s.ptr(cl, orLast(protocol.EventAt(cb.Spans, max(d.Hunks[0].BOff, 0)), cl))
			peer := s.ptr(up, orLast(protocol.EventAt(ca.Spans, d.Hunks[0].AOff), up))
			s.c.emitPair("diff.upstream-client", at, &peer, hunkEvidence(d.Hunks[0]),
				"choice "+strconv.Itoa(idx)+": "+strconv.Itoa(len(d.Hunks))+" difference(s) between upstream and client text")
		}
	}
	s.usage(a, b)
	s.errors(a, b)
	if a.Model != "" && b.Model != "" && a.Model != b.Model {
		peer := s.ptr(up, 0)
		c.emitPair("diff.model-changed", s.ptr(cl, 0), &peer, a.Model+" → "+b.Model, "the client is told another model than the upstream answered with")
	}
}

// comparable reports whether both sides carry a stream or body in a
// protocol seam assembles, and neither the client nor seam's shutdown cut
// them early (a client that left has less because it left, not because
// the proxy dropped it).
func comparable(up, cl *SideReport) bool {
	if up == nil || cl == nil || up.Chunks == 0 || cl.Chunks == 0 {
		return false
	}
	if up.Message.Protocol == protocol.Unknown || cl.Message.Protocol == protocol.Unknown {
		return false
	}
	for _, o := range []tape.Outcome{cl.Outcome, up.Outcome} {
		if o == tape.ClientAborted || o == tape.RecorderShutdown {
			return false // cut short: each side has what it had when it was cut
		}
	}
	return true
}

// choiceIndexes lists the choice indexes either message has, in order. A
// stream names any number of them (a hostile one a new one per event), so
// they are sorted, not inserted in order.
func choiceIndexes(a, b *protocol.Message) []int {
	seen := map[int]bool{}
	var out []int
	for _, m := range []*protocol.Message{a, b} {
		for _, ch := range m.Choices {
			if !seen[ch.Index] {
				seen[ch.Index] = true
				out = append(out, ch.Index)
			}
		}
	}
	slices.Sort(out)
	return out
}

// choiceAt returns the choice with index i, or an empty one (for one
// lookup; choicesByIndex for many).
func choiceAt(m *protocol.Message, i int) *protocol.Choice {
	for k := range m.Choices {
		if m.Choices[k].Index == i {
			return &m.Choices[k]
		}
	}
	return &protocol.Choice{Index: i}
}

// choiceMap finds a message's choices by index.
type choiceMap map[int]*protocol.Choice

func choicesByIndex(m *protocol.Message) choiceMap {
	at := make(choiceMap, len(m.Choices))
	for k := range m.Choices {
		if _, dup := at[m.Choices[k].Index]; !dup {
			at[m.Choices[k].Index] = &m.Choices[k]
		}
	}
	return at
}

// get returns the choice with index i, or an empty one.
func (at choiceMap) get(i int) *protocol.Choice {
	if ch := at[i]; ch != nil {
		return ch
	}
	return &protocol.Choice{Index: i}
}

// choiceLabel prefixes a message with the choice when there are several.
func choiceLabel(idx int) string {
	if idx == 0 {
		return ""
	}
	return "choice " + strconv.Itoa(idx) + ": "
}

// calls compares the tool calls of one choice.
func (s *structCtx) calls(idx int, ca, cb *protocol.Choice) {
	pairs := matchCalls(s.c.callsOf(s.up, ca), s.c.callsOf(s.cl, cb))
	converted := 0
	var convEvidence []string
	for _, p := range pairs {
		switch {
		case p.b == nil:
			s.c.emitPair("diff.tool-call-dropped", s.ptr(s.up, p.a.first), nil, callEvidence(p.a),
				choiceLabel(idx)+"upstream tool call "+p.a.name+" "+idNote(p.a)+"never reaches the client")
		case p.a == nil:
			s.c.emitPair("diff.tool-call-added", s.ptr(s.cl, p.b.first), nil, callEvidence(p.b),
				choiceLabel(idx)+"the client gets tool call "+p.b.name+" "+idNote(p.b)+"that the upstream never made")
		default:
			at, peer := s.ptr(s.cl, p.b.first), s.ptr(s.up, p.a.first)
			pp := &peer
			if p.a.name != p.b.name {
				s.c.emitPair("diff.tool-name-changed", at, pp, p.a.name+" → "+p.b.name,
					choiceLabel(idx)+"tool call "+idNote(p.a)+"is renamed from "+p.a.name+" to "+p.b.name)
			}
			if p.a.id != "" && p.b.id != "" && p.a.id != p.b.id {
				s.c.emitPair("diff.tool-id-changed", at, pp, p.a.id+" → "+p.b.id,
					choiceLabel(idx)+"tool call "+p.b.name+" gets another id: a tool result sent back under the client's id matches nothing upstream")
			}
			if !argsEqual(p.a, p.b) {
				// The arguments are what they are once the call's last
				// event arrived: point there on each side.
				last, lastPeer := s.ptr(s.cl, p.b.last), s.ptr(s.up, p.a.last)
				s.c.emitPair("diff.tool-args-changed", last, &lastPeer, argsEvidence(p.a, p.b),
					choiceLabel(idx)+"the arguments of tool call "+p.b.name+" differ between upstream and client"+argsHow(p.a, p.b))
			}
			if p.a.xml != p.b.xml {
				converted++
				if len(convEvidence) < 3 {
					convEvidence = append(convEvidence, p.b.name)
				}
			}
		}
	}
	if converted > 0 {
		p := firstConverted(pairs)
		from, to := "structured", "Obsidian <use_tool> XML in the text"
		if p.a.xml {
			from, to = to, from
		}
		s.c.emitPair("diff.tool-call-converted", s.ptr(s.cl, p.b.first), nil, strings.Join(convEvidence, ", "),
			choiceLabel(idx)+strconv.Itoa(converted)+" tool call(s) carried from "+from+" to "+to)
	}
}

// firstConverted returns the first pair whose call changed between
// structured and XML form.
func firstConverted(pairs []callPair) callPair {
	for _, p := range pairs {
		if p.a != nil && p.b != nil && p.a.xml != p.b.xml {
			return p
		}
	}
	return callPair{}
}

// idNote renders a call's id for a message ("#call_1 "), or "".
func idNote(c *sideCall) string {
	if c.id == "" {
		return ""
	}
	return "#" + c.id + " "
}

func callEvidence(c *sideCall) string {
	form := ""
	if c.xml {
		form = " (XML)"
	}
	return c.name + "(" + excerpt.Clip(c.args, 100) + ")" + form
}

// argsHow says how two differing arguments differ, when it is simple.
func argsHow(a, b *sideCall) string {
	_, okA := a.value(false)
	_, okB := b.value(false)
	switch {
	case okA && !okB:
		return " (the client's are not valid JSON)"
	case !okA && okB:
		return " (the upstream's are not valid JSON)"
	case okA && okB:
		return " (as JSON values)"
	}
	return ""
}

// argsEvidence shows what differs between two calls' arguments: for two
// objects the parameters added, removed and changed (the first with both
// values), else both strings from a little before their first difference.
func argsEvidence(a, b *sideCall) string {
	loose := a.xml || b.xml
	va, okA := a.value(loose)
	vb, okB := b.value(loose)
	oa, isA := va.(map[string]any)
	ob, isB := vb.(map[string]any)
	if !okA || !okB || !isA || !isB {
		return "upstream " + clipFrom(a.args, b.args) + " / client " + clipFrom(b.args, a.args)
	}
	var removed, added, changed []string
	first := ""
	for _, k := range sortedKeys(oa) {
		w, ok := ob[k]
		switch {
		case !ok:
			removed = append(removed, k)
		case !jsonvalue.Equal(oa[k], w, loose):
			changed = append(changed, k)
			if first == "" {
				ja, jb := jsonvalue.Encode(oa[k]), jsonvalue.Encode(w)
				first = k + ": upstream " + clipFrom(ja, jb) + " / client " + clipFrom(jb, ja)
			}
		}
	}
	for _, k := range sortedKeys(ob) {
		if _, ok := oa[k]; !ok {
			added = append(added, k)
		}
	}
	var parts []string
	for _, p := range []struct {
		verb string
		keys []string
	}{{"client adds", added}, {"drops", removed}, {"changes", changed}} {
		if len(p.keys) > 0 {
			parts = append(parts, p.verb+" "+strings.Join(p.keys, ", "))
		}
	}
	ev := strings.Join(parts, "; ")
	if first != "" {
		ev += "; " + first
	}
	return ev
}

// clipFrom shows s from a little before where it first differs from t.
func clipFrom(s, t string) string {
	i := commonPrefix(s, t)
	from := max(0, i-20)
	for from > 0 && from < len(s) && !utf8.RuneStart(s[from]) {
		from--
	}
	out := excerpt.Clip(s[from:], 60)
	if from > 0 {
		out = "…" + out
	}
	return strconv.Quote(out)
}

func sortedKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}

// channel compares a text channel (reasoning, refusal) of one choice: where
// it was born on each side, the evidence and a message, and whether the
// two differ.
func (s *structCtx) channel(what, a, b string, ba, bb protocol.Born) (at, peer Pointer, evidence, msg string, differ bool) {
	if a == b {
		return at, peer, "", "", false
	}
	at, peer = s.ptr(s.cl, orLast(bb.First(), s.cl)), s.ptr(s.up, orLast(ba.First(), s.up))
	msg = what + " differs between upstream and client"
	switch {
	case b == "":
		msg = "the upstream's " + what + " never reaches the client"
	case a == "":
		msg = "the client gets " + what + " the upstream never sent"
	}
	return at, peer, "upstream " + strconv.Quote(excerpt.Clip(a, 60)) + " / client " + strconv.Quote(excerpt.Clip(b, 60)), msg, true
}

// Finish reason classes, so that one protocol's reason matches another's:
// a Responses stream says only completed or incomplete, which covers more
// than one Chat reason.
const (
	finStop = 1 << iota
	finTools
	finLength
	finFilter
	finError
)

// finishClass returns the classes a finish reason (or Responses status)
// stands for, or 0 when it is not one seam knows.
func finishClass(reason string) int {
	switch strings.ToLower(reason) {
	case "stop", "end_turn", "stop_sequence", "complete", "eos", "pause_turn":
		return finStop
	case "tool_calls", "tool_use", "function_call", "tool_call":
		return finTools
	case "completed":
		return finStop | finTools
	case "length", "max_tokens", "max_output_tokens", "model_context_window_exceeded":
		return finLength
	case "content_filter", "refusal", "safety":
		return finFilter
	case "incomplete":
		return finLength | finFilter
	case "failed", "error":
		return finError
	}
	return 0
}

// sameFinish reports whether two finish reasons say the same thing.
func sameFinish(a, b string) bool {
	if strings.EqualFold(a, b) {
		return true
	}
	ka, kb := finishClass(a), finishClass(b)
	return ka != 0 && kb != 0 && ka&kb != 0
}

// finish compares the finish reasons of one choice.
func (s *structCtx) finish(idx int, ma, mb *protocol.Message, ca, cb *protocol.Choice) {
	if sameFinish(ca.FinishReason, cb.FinishReason) {
		return
	}
	at, peer := s.ptr(s.cl, orLast(cb.FinishBorn.Last(), s.cl)), s.ptr(s.up, orLast(ca.FinishBorn.Last(), s.up))
	msg := "finish reason " + orDash(ca.FinishReason) + " upstream, " + orDash(cb.FinishReason) + " at the client"
	if cb.FinishReason == "" {
		msg = "the upstream's finish reason " + ca.FinishReason + " never reaches the client"
	}
	s.c.emitPair("diff.finish-changed", at, &peer, orDash(ca.FinishReason)+" → "+orDash(cb.FinishReason), choiceLabel(idx)+msg)
}

// usage compares the token usage of the two messages.
func (s *structCtx) usage(a, b *protocol.Message) {
	ua, ub := a.Usage, b.Usage
	if ua == nil && ub == nil {
		return
	}
	at, peer := s.ptr(s.cl, orLast(b.UsageBorn.Last(), s.cl)), s.ptr(s.up, orLast(a.UsageBorn.Last(), s.up))
	switch {
	case ub == nil:
		s.c.emitPair("diff.usage-changed", at, &peer, usageText(ua)+" → none", "the upstream's token usage never reaches the client")
		return
	case ua == nil:
		s.c.emitPair("diff.usage-changed", at, &peer, "none → "+usageText(ub), "the client gets token usage the upstream never sent")
		return
	}
	var diffs []string
	field := func(name string, x, y int, both bool) {
		if x != y && (!both || x != 0 && y != 0) {
			diffs = append(diffs, name+" "+strconv.Itoa(x)+" → "+strconv.Itoa(y))
		}
	}
	field("input", ua.Input, ub.Input, false)
	field("output", ua.Output, ub.Output, false)
	field("total", ua.Total, ub.Total, true)
	field("reasoning", ua.Reasoning, ub.Reasoning, false)
	field("cache_read", ua.CacheRead, ub.CacheRead, false)
	field("cache_creation", ua.CacheCreation, ub.CacheCreation, false)
	if len(diffs) > 0 {
		s.c.emitPair("diff.usage-changed", at, &peer, strings.Join(diffs, ", "), "token usage differs between upstream and client")
	}
}

func usageText(u *protocol.Usage) string {
	return "in " + strconv.Itoa(u.Input) + ", out " + strconv.Itoa(u.Output)
}

// errors compares the errors the two streams carry.
func (s *structCtx) errors(a, b *protocol.Message) {
	if (a.Error == "") == (b.Error == "") {
		return
	}
	at, peer := s.ptr(s.cl, orLast(b.ErrorBorn.First(), s.cl)), s.ptr(s.up, orLast(a.ErrorBorn.First(), s.up))
	if b.Error == "" {
		s.c.emitPair("diff.error-changed", at, &peer, excerpt.Clip(a.Error, 120), "the upstream's error never reaches the client, which takes a failed answer for a whole one")
		return
	}
	s.c.emitPair("diff.error-changed", at, &peer, excerpt.Clip(b.Error, 120), "the client gets an error the upstream never sent")
}
