package inspect

import (
	"strings"

	"github.com/seam-dev/seam/clients"
	"github.com/seam-dev/seam/internal/jsonvalue"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/tape"
)

// The tool calls of the two sides in one normalized form, and paired: a
// structured call, or a <use_tool> block of the text as Obsidian Copilot
// reads it; paired by id, then by name and arguments, by name, by
// arguments, and the calls left over as dropped or added.

// sideCall is one tool call of one side in normalized form: a structured
// call, or a <use_tool> block of the text as Obsidian Copilot reads it.
type sideCall struct {
	name, id string
	// args is the arguments as a string: the raw JSON of a structured call,
	// the JSON of the parameters Obsidian reads out of a block.
	args string
	// xml is set for a call read out of the text (no id; scalars are
	// strings, since XML carries no types).
	xml bool
	// start and end are the byte range of an XML call's block in the text.
	start, end int
	// first is the event where the call was born, last the one that
	// completed it (-1 when unknown).
	first, last int
	// val is args decoded (the parameters, for an XML call), once: valOK
	// says it is one JSON value, decoded that it was looked at.
	val            any
	valOK, decoded bool
}

// value returns the call's arguments as a JSON value, decoding them once.
// Against XML, empty arguments are {} (XML cannot tell them apart).
func (c *sideCall) value(loose bool) (any, bool) {
	if loose && strings.TrimSpace(c.args) == "" {
		return map[string]any{}, true
	}
	if !c.decoded {
		c.val, c.valOK = jsonvalue.Decode(c.args)
		c.decoded = true
	}
	return c.val, c.valOK
}

// callsOf returns the tool calls of choice ch of side s, reading them once
// per exchange (the text diff and the structural comparison both use them).
func (c *exCtx) callsOf(s *SideReport, ch *protocol.Choice) []sideCall {
	key := callsKey{s.Side, ch.Index}
	if calls, ok := c.calls[key]; ok {
		return calls
	}
	if c.calls == nil {
		c.calls = map[callsKey][]sideCall{}
	}
	calls := callsOf(ch, c.xmlCallsOf(s, ch))
	c.calls[key] = calls
	return calls
}

// xmlCallsOf returns the <use_tool> blocks of the text of choice ch of
// side s as Obsidian reads them (ParseXMLToolCalls), parsing the text once
// per exchange: the structural comparison, the XML detectors and the
// schema checks all read them.
func (c *exCtx) xmlCallsOf(s *SideReport, ch *protocol.Choice) []clients.XMLToolCall {
	if !strings.Contains(ch.Text, clients.XMLOpen) {
		return nil
	}
	key := callsKey{s.Side, ch.Index}
	if calls, ok := c.xmlCalls[key]; ok {
		return calls
	}
	if c.xmlCalls == nil {
		c.xmlCalls = map[callsKey][]clients.XMLToolCall{}
	}
	calls := clients.ParseXMLToolCalls(ch.Text)
	c.xmlCalls[key] = calls
	return calls
}

// callsKey names one choice of one side.
type callsKey struct {
	side   tape.Side
	choice int
}

// callsOf returns the tool calls of a choice: its structured calls, then
// xml, the <use_tool> blocks of its text.
func callsOf(ch *protocol.Choice, xml []clients.XMLToolCall) []sideCall {
	var out []sideCall
	for _, tc := range ch.ToolCalls {
		args := tc.Arguments
		if tc.Custom {
			// Free-form input: the XML carrying it names it <input>.
			args = jsonvalue.Encode(map[string]any{"input": args})
		}
		out = append(out, sideCall{name: tc.Name, id: tc.ID, args: args, first: tc.Born.First(), last: tc.Born.Last()})
	}
	for _, x := range xml {
		out = append(out, sideCall{name: x.Name, args: x.Arguments(), xml: true, start: x.Start, end: x.End,
			first: protocol.EventAt(ch.Spans, x.Start), last: protocol.EventAt(ch.Spans, max(x.End-1, x.Start)),
			val: x.Args, valOK: true, decoded: true})
	}
	return out
}

// callPair is a tool call matched across the sides; a or b is nil for a
// call only one side has.
type callPair struct{ a, b *sideCall }

// matchCalls pairs upstream calls (a) with client calls (b): by id where
// both carry one, then by name and equal arguments, then by name, in order;
// finally a leftover pair with equal arguments is one call renamed. What is
// left is a dropped call (upstream only) or an added one (client only).
func matchCalls(a, b []sideCall) []callPair {
	usedA, usedB := make([]bool, len(a)), make([]bool, len(b))
	var pairs []callPair
	if len(a)*len(b) > matchPairs {
		// Each pass below tries every pair: past this many, only the
		// passes a map can do (by id, then by name), in order.
		matchKeyed(a, b, usedA, usedB, &pairs, func(c *sideCall) string {
			if c.id == "" {
				return ""
			}
			return "id\x00" + c.id
		})
		matchKeyed(a, b, usedA, usedB, &pairs, func(c *sideCall) string { return "name\x00" + c.name })
		return leftover(a, b, usedA, usedB, pairs)
	}
	pass := func(ok func(x, y *sideCall) bool) {
		for i := range a {
			if usedA[i] {
				continue
			}
			for j := range b {
				if !usedB[j] && ok(&a[i], &b[j]) {
					usedA[i], usedB[j] = true, true
					pairs = append(pairs, callPair{&a[i], &b[j]})
					break
				}
			}
		}
	}
	pass(func(x, y *sideCall) bool { return x.id != "" && x.id == y.id })
	pass(func(x, y *sideCall) bool { return x.name == y.name && argsEqual(x, y) })
	pass(func(x, y *sideCall) bool { return x.name == y.name })
	pass(func(x, y *sideCall) bool { return argsEqual(x, y) && strings.TrimSpace(x.args) != "" && x.args != "{}" })
	return leftover(a, b, usedA, usedB, pairs)
}

// matchPairs is how many pairs of calls matchCalls compares one by one: a
// stream names any number of calls (a hostile one a new tool index per
// event), and more pairs than this are matched through maps.
const matchPairs = 1 << 20

// matchKeyed pairs the unused calls of a and b with the same non-empty
// key, in order.
func matchKeyed(a, b []sideCall, usedA, usedB []bool, pairs *[]callPair, key func(*sideCall) string) {
	byKey := map[string][]int{}
	for j := range b {
		if k := key(&b[j]); !usedB[j] && k != "" {
			byKey[k] = append(byKey[k], j)
		}
	}
	for i := range a {
		k := key(&a[i])
		if usedA[i] || k == "" || len(byKey[k]) == 0 {
			continue
		}
		j := byKey[k][0]
		byKey[k] = byKey[k][1:]
		usedA[i], usedB[j] = true, true
		*pairs = append(*pairs, callPair{&a[i], &b[j]})
	}
}

// leftover appends the calls no pass matched: dropped (a) and added (b).
func leftover(a, b []sideCall, usedA, usedB []bool, pairs []callPair) []callPair {
	for i := range a {
		if !usedA[i] {
			pairs = append(pairs, callPair{a: &a[i]})
		}
	}
	for j := range b {
		if !usedB[j] {
			pairs = append(pairs, callPair{b: &b[j]})
		}
	}
	return pairs
}

// argsEqual compares the arguments of two calls: as JSON values when both
// parse (so spacing and key order do not matter), else as strings. Against
// a call read out of XML, scalars compare by their text and empty
// arguments equal {}, since XML can carry neither types nor the difference.
func argsEqual(x, y *sideCall) bool {
	if x.args == y.args {
		return true
	}
	loose := x.xml || y.xml
	va, okA := x.value(loose)
	vb, okB := y.value(loose)
	if !okA || !okB {
		return false // the strings differ and one is not JSON
	}
	return jsonvalue.Equal(va, vb, loose)
}
