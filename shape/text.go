package shape

import "strings"

// The textual tool-call tokens (Obsidian Copilot 3.0–3.1 grammar), and the
// closer without its '>', the longest prefix the holdback looks for.
const (
	toolOpen     = "<use_tool"
	toolClose    = "</use_tool>"
	toolCloseTag = "</use_tool"
)

// choiceState is the per-choice state of the textual transforms, modelled on
// the original shaping proxy's (docs/GLOSSARY.md). Offsets are byte offsets into
// emitted (the original used UTF-16 indices; the logic is the same on valid
// UTF-8 because every token it looks for is ASCII).
type choiceState struct {
	index int
	// acc holds emitted: every accepted upstream text fragment of this
	// choice. A strings.Builder never rewrites bytes it has written, so the
	// deltas sent are substrings of it, without copies.
	acc strings.Builder
	// fwd (forwardedUpTo) is the offset in emitted already sent to the
	// client or deliberately skipped.
	fwd int
	// scanPos is where the next complete-block scan starts; closeFrom is
	// where the search for the closer of an open block resumes.
	scanPos   int
	closeFrom int
	// lastToolEnd is the end offset of the last complete block, or -1.
	lastToolEnd int
	// The tool buffer: armed at a "<use_tool" found at or after fwd, it holds
	// text back from its start until the block is complete.
	bufActive bool
	bufStart  int
	searchPos int
	skipUntil int
	// blocks counts tool blocks forwarded (input to stop-after-tools).
	blocks int
	// tools holds structured calls being collected for xml-tools.
	tools []toolAcc
	// cum holds cumulative arguments per tool index (incremental-args off).
	cum map[int]string
}

// toolAcc accumulates one structured tool call.
type toolAcc struct {
	index    int
	id, name string
	args     []byte
}

func newChoice(i int) *choiceState { return &choiceState{index: i, lastToolEnd: -1} }

// appendText runs one upstream text fragment through the textual transforms:
// acceptance (with the historical overlap dedupe), tool-buffer arming,
// complete-block detection and emission, and the forwarding clamp (tail
// suppression, buffer, partial-prefix holdback).
func (c *choiceState) appendText(s *shaper, text string) {
	if s.cfg.overlapDedupe {
		text = dedupe(c.acc.String(), text)
	}
	if text == "" {
		return
	}
	c.acc.WriteString(text)
	c.advance(s)
}

// appendXML runs XML the engine rendered itself through the textual
// transforms, as [choiceState.appendText] without the dedupe.
func (c *choiceState) appendXML(s *shaper, xml []byte) {
	if len(xml) == 0 {
		return
	}
	c.acc.Write(xml)
	c.advance(s)
}

// advance runs the transforms over text just appended to emitted.
func (c *choiceState) advance(s *shaper) {
	if s.cfg.toolBlock {
		c.trackOpen()
	}
	c.scanBlocks(s)
	if s.state == stateStopped {
		return
	}
	c.forward(s, false)
	c.compact()
}

// dedupe applies the original's two acceptance rules (bug class C): a
// fragment that starts with everything emitted so far is a cumulative
// snapshot and only its new suffix is kept; otherwise the longest overlap
// between the end of emitted and the start of the fragment is dropped.
func dedupe(emitted, text string) string {
	if strings.HasPrefix(text, emitted) {
		return text[len(emitted):]
	}
	k := min(len(emitted), len(text))
	for ; k > 0; k-- {
		if emitted[len(emitted)-k:] == text[:k] {
			break
		}
	}
	return text[k:]
}

// trackOpen arms the tool buffer at the first "<use_tool" at or after
// max(searchPos, fwd). An opener that starts before fwd (because its first
// bytes were already forwarded as text) is never armed: that is the incident's
// mechanism when holdback is off.
func (c *choiceState) trackOpen() {
	if c.bufActive {
		return
	}
	e := c.acc.String()
	from := max(c.searchPos, c.fwd)
	if from > len(e) {
		return
	}
	if i := strings.Index(e[from:], toolOpen); i >= 0 {
		c.bufActive = true
		c.bufStart = from + i
		c.searchPos = c.bufStart + len(toolOpen)
		return
	}
	c.searchPos = max(len(e)-len(toolOpen), from)
}

// scanBlocks finds complete <use_tool …</use_tool> blocks from scanPos and,
// with tool-block on, sends each one not yet forwarded as one literal delta.
// It finds the same blocks as rescanning from scanPos every time, but
// resumes the searches where the previous call left off, so a long stream
// costs time linear in its length.
func (c *choiceState) scanBlocks(s *shaper) {
	e := c.acc.String()
	for {
		if c.scanPos > len(e) {
			return
		}
		o := strings.Index(e[c.scanPos:], toolOpen)
		if o < 0 {
			// An opener can only begin in the last len(toolOpen)-1 bytes.
			c.scanPos = max(c.scanPos, len(e)-len(toolOpen)+1)
			return
		}
		start := c.scanPos + o
		c.scanPos = start
		from := max(start, c.closeFrom)
		cl := strings.Index(e[from:], toolClose)
		if cl < 0 {
			c.closeFrom = max(start, len(e)-len(toolClose)+1)
			return
		}
		end := from + cl + len(toolClose)
		c.lastToolEnd = end
		c.scanPos = end
		c.closeFrom = end
		if !s.cfg.toolBlock || end <= c.fwd || end <= c.skipUntil {
			continue
		}
		if start > c.fwd {
			// Text before the block that was not forwarded yet (a preamble in
			// the same fragment, or narrative held by tail suppression).
			s.emitText(c, e[c.fwd:start])
		}
		// The whole literal block, as one delta. If its first bytes already
		// leaked as text, they are sent again: the incident.
		s.emitText(c, e[start:end])
		c.fwd = end
		c.skipUntil = max(c.skipUntil, end)
		c.searchPos = max(c.searchPos, end)
		c.bufActive = false
		c.blocks++
		if s.cfg.stopAfter > 0 && c.blocks >= s.cfg.stopAfter {
			s.cut()
			return
		}
	}
}

// compactAt and compactKeep bound the memory of a long choice: once this
// much text is forwarded and no block is pending, the forwarded text is
// dropped except for a tail (the overlap dedupe compares fragments with the
// end of the text so far).
const (
	compactAt   = 64 << 10
	compactKeep = 4 << 10
)

// compact drops the start of emitted that no rule can look at again and
// shifts every offset.
func (c *choiceState) compact() {
	if c.bufActive || c.fwd < compactAt {
		return
	}
	cut := min(c.fwd, c.scanPos) - compactKeep
	if cut < compactAt/2 {
		return
	}
	tail := c.acc.String()[cut:]
	c.acc = strings.Builder{}
	c.acc.Grow(compactAt + compactKeep)
	c.acc.WriteString(tail)
	shift := func(p *int) { *p = max(*p-cut, 0) }
	shift(&c.fwd)
	shift(&c.scanPos)
	shift(&c.closeFrom)
	shift(&c.searchPos)
	shift(&c.skipUntil)
	if c.lastToolEnd >= 0 {
		shift(&c.lastToolEnd)
	}
}

// holdbackStart returns where a trailing partial "<use_tool" or "</use_tool"
// at or after fwd starts, or len(emitted).
func (c *choiceState) holdbackStart() int {
	e := c.acc.String()
	n := len(e)
	// Every prefix of either token holds exactly one '<', at its start, so
	// the only candidate is the last '<' of the final len("</use_tool") bytes.
	w := max(n-len(toolCloseTag), 0)
	i := strings.LastIndexByte(e[w:], '<')
	if i < 0 {
		return n
	}
	i += w
	tail := e[i:]
	for _, p := range [...]string{toolOpen, toolCloseTag} {
		if len(tail) <= len(p) && p[:len(tail)] == tail && i >= c.fwd {
			return i
		}
	}
	return n
}

// forward sends emitted[fwd:allow] where allow is clamped by tail suppression
// and, unless final, by the armed tool buffer and the holdback. All slices are
// clamped (allow may fall below fwd).
func (c *choiceState) forward(s *shaper, final bool) {
	e := c.acc.String()
	allow := len(e)
	if s.cfg.suppressTail && c.lastToolEnd >= 0 {
		allow = min(allow, c.lastToolEnd)
	}
	if !final {
		if s.cfg.toolBlock && c.bufActive && c.bufStart >= c.fwd {
			allow = min(allow, c.bufStart)
		}
		if s.cfg.holdback {
			allow = min(allow, c.holdbackStart())
		}
	}
	if allow > c.fwd {
		s.emitText(c, e[c.fwd:allow])
		c.fwd = allow
	}
}

// flush ends the choice's text: structured calls still open are rendered,
// then everything not suppressed is forwarded, including held-back prefixes
// and an unterminated block (delivered as partial text, as the original did).
func (c *choiceState) flush(s *shaper) {
	for len(c.tools) > 0 && s.state != stateStopped {
		c.endTool(s, c.tools[0].index)
	}
	if s.state == stateStopped {
		return
	}
	c.forward(s, true)
}

func (c *choiceState) tool(index int) *toolAcc {
	for i := range c.tools {
		if c.tools[i].index == index {
			return &c.tools[i]
		}
	}
	return nil
}

// endTool renders the structured call as XML and feeds it to the textual
// pipeline, so tool-block, tail suppression and stop-after-tools apply to it
// as to a block the model wrote.
func (c *choiceState) endTool(s *shaper, index int) {
	t := c.tool(index)
	if t == nil {
		return
	}
	s.xml = renderXML(s.xml[:0], t.name, string(t.args), s.cfg.voidArgsTag)
	for i := range c.tools {
		if c.tools[i].index == index {
			c.tools = append(c.tools[:i], c.tools[i+1:]...)
			break
		}
	}
	c.appendXML(s, s.xml)
}
