package protocol

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/internal/jsontext"
	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// gemCandidate is one candidate being assembled from a Gemini stream.
type gemCandidate struct {
	index     int
	role      string
	text      spanText
	reasoning strings.Builder
	calls     []ToolCall
	partial   *gemPartial // the call whose arguments continue (willContinue)
	finish    string
	finished  int // event of the first finishReason, or -1
	signature string
	// reasonAt and finishAt are the events that added to the reasoning
	// and that carried a finishReason.
	reasonAt, finishAt Born
}

// gemPartial builds the arguments of a Vertex function call streamed as
// partialArgs, in the order their JSON paths first appear.
type gemPartial struct {
	call  int
	paths []string
	vals  map[string]*strings.Builder
	str   map[string]bool
}

// gemEvent is what one Gemini event says.
type gemEvent struct {
	id, model   string
	errv        RawJSON
	blockReason string
	usage       RawJSON
	hasCands    bool
	cands       []gemCand
	parts       []gemPart
}

// blockedFinish are the finish reasons with which Gemini stops an answer
// it will not give (google-genai's FinishReason): a finding, not a failure
// of the stream.
var blockedFinish = map[string]bool{
	"SAFETY": true, "RECITATION": true, "BLOCKLIST": true, "PROHIBITED_CONTENT": true, "SPII": true,
	"IMAGE_SAFETY": true, "IMAGE_PROHIBITED_CONTENT": true, "IMAGE_RECITATION": true, "LANGUAGE": true,
}

// abnormalFinish are the finish reasons that say the answer went wrong.
var abnormalFinish = map[string]bool{
	"MALFORMED_FUNCTION_CALL": true, "UNEXPECTED_TOOL_CALL": true, "TOO_MANY_TOOL_CALLS": true,
	"FINISH_REASON_UNSPECIFIED": true, "OTHER": true, "IMAGE_OTHER": true, "NO_IMAGE": true,
}

// gemState is the assembly state of a Gemini stream.
type gemState struct {
	a *Assembly
	m *Message
	// Candidates by index in a map, in first-seen order in cands: an index
	// is whatever the stream says, and a stream may name a new one in every
	// chunk.
	cands       []*gemCandidate
	byIndex     map[int]*gemCandidate
	finishedNow []*gemCandidate // the candidates this chunk finished
	usage       RawJSON
	ge          gemEvent
}

// geminiHandlers: a chunk has no type; chunk reads every one. Only a chunk
// with candidates is late after the end.
var geminiHandlers = handlers[gemState, gemEvent]{
	decode:  (*gemState).decode,
	each:    (*gemState).chunk,
	matters: func(ge *gemEvent) bool { return len(ge.cands) > 0 },
	finish:  (*gemState).finish,
}

// assembleGemini follows docs/PROTOCOLS.md#gemini with the google-genai
// SDK's rules (GenerateContentResponse.text and function_calls, applied
// per chunk and joined in order): candidates by index; text parts joined,
// thought parts (thought: true) joined apart as reasoning; every
// functionCall part its own call, never merged across chunks (Vertex
// partialArgs are joined while the call says willContinue);
// thoughtSignature kept with its part; usageMetadata taken from the last
// chunk that has it. The end is the first chunk with a finishReason or a
// promptFeedback.blockReason: there is no sentinel. A bare or
// array-wrapped {"error": …} is the in-band error.
func assembleGemini(se *Side) *Assembly {
	a := newAssembly(Gemini)
	s := &gemState{a: a, m: &a.Message, byIndex: map[int]*gemCandidate{}}
	drive(a, &geminiFamily, se.Events, s, &geminiHandlers)
	return a
}

// decode decodes a chunk, unwrapping the one-element list in which the
// JSON-array form wraps an error.
func (s *gemState) decode(_ int, e *Event) (*gemEvent, bool) {
	data := e.Data
	if d := strings.TrimSpace(data); d != "" && d[0] == '[' && gjson.Valid(d) {
		if first := gjson.Get(d, "0"); first.IsObject() {
			data = first.Raw
		}
	}
	return &s.ge, decodeGemini(data, &s.ge)
}

// cand returns candidate i.
func (s *gemState) cand(i int) *gemCandidate {
	c := s.byIndex[i]
	if c == nil {
		c = &gemCandidate{index: i, finished: -1}
		s.byIndex[i] = c
		s.cands = append(s.cands, c)
	}
	return c
}

// chunk reads one chunk: its candidates' parts and finish reasons, an
// in-band error, its usage and a prompt block, ending the stream at the
// first finish, block or error.
func (s *gemState) chunk(i int, e *Event, ge *gemEvent) {
	a, m := s.a, s.m
	s.finishedNow = s.finishedNow[:0]
	for _, gc := range ge.cands {
		c := s.cand(gc.index)
		if gc.role != "" {
			c.role = gc.role
		}
		for k := gc.p0; k < gc.p1; k++ {
			c.add(&ge.parts[k], a, i)
		}
		if gc.finish != "" {
			c.finish = finishName(gc.finish)
			c.finishAt.Add(i)
			if c.finished < 0 {
				c.finished = i
				s.finishedNow = append(s.finishedNow, c)
			}
		}
	}
	if ge.errv != "" {
		a.inBandError(i, e.Data, geminiError(ge.errv.Result()), "the stream carries an error")
		a.end(i)
		return
	}
	if m.ID == "" {
		m.ID = ge.id
	}
	if m.Model == "" {
		m.Model = ge.model
	}
	if ge.usage != "" {
		s.usage = ge.usage
		m.UsageBorn = Born{}
		m.UsageBorn.Add(i)
	}
	if ge.blockReason != "" {
		m.Error = "prompt blocked (" + ge.blockReason + ")"
		m.ErrorBorn.Add(i)
		m.Status = "blocked"
		a.flag("stream.blocked", i, jsonMember("blockReason", ge.blockReason), "Gemini blocked the prompt (promptFeedback.blockReason %s): there is no answer", ge.blockReason)
		a.end(i)
	}
	for _, c := range s.finishedNow {
		a.end(i)
		switch {
		case blockedFinish[c.finish]:
			a.flag("stream.blocked", i, jsonMember("finishReason", c.finish), "candidate %d stopped with finishReason %s: the answer is cut or withheld", c.index, c.finish)
		case abnormalFinish[c.finish]:
			a.flag("finish.abnormal", i, jsonMember("finishReason", c.finish), "candidate %d ended with finishReason %s", c.index, c.finish)
		}
	}
}

// finish builds the choices from the candidates, flagging function call
// arguments that are not JSON.
func (s *gemState) finish(n int) {
	a, m := s.a, s.m
	if m.Status == "" && a.Terminal >= 0 && m.Error == "" {
		m.Status = "done"
	}
	if s.usage != "" {
		u := s.usage.Result()
		m.Usage = &Usage{Input: int(u.Get("promptTokenCount").Int()), Output: int(u.Get("candidatesTokenCount").Int()),
			Total: int(u.Get("totalTokenCount").Int()), Reasoning: int(u.Get("thoughtsTokenCount").Int()),
			CacheRead: int(u.Get("cachedContentTokenCount").Int())}
	}
	choices := choiceFinder{m: m}
	for _, c := range s.cands {
		ch := choices.get(c.index)
		ch.Role = c.role
		if ch.Role == "" {
			ch.Role = "model"
		}
		ch.Text, ch.Reasoning, ch.Spans = c.text.String(), c.reasoning.String(), c.text.spans
		ch.FinishReason, ch.Signature = c.finish, c.signature
		ch.ReasoningBorn, ch.FinishBorn = c.reasonAt, c.finishAt
		for k := range c.calls {
			if p := c.partial; p != nil && p.call == k {
				c.calls[k].Arguments = p.json()
			}
		}
		ch.ToolCalls = c.calls
		for _, tc := range ch.ToolCalls {
			if tc.Arguments != "" && !gjson.Valid(tc.Arguments) {
				a.flag("tool.args-invalid-json", n-1, excerpt.Clip(tc.Arguments, 120), "function call %s arguments are not valid JSON", tc.Name)
			}
		}
	}
	sortChoices(m)
}

// decodeGemini reads one GenerateContentResponse into ge in one pass,
// the candidates' parts into ge.cands and ge.parts, and reports whether it
// is valid JSON (only then is it applied).
func decodeGemini(data string, ge *gemEvent) bool {
	cands, parts := ge.cands[:0], ge.parts[:0]
	*ge = gemEvent{}
	defer func() { ge.cands, ge.parts = cands, parts }()
	sc := scanOf(data)
	for k := range sc.Object() {
		switch k {
		case "candidates":
			ge.hasCands = true
			if !sc.Open('[') {
				sc.Skip()
				break
			}
			for n := 0; sc.Elem(&n); {
				var c gemCand
				c.p0 = len(parts)
				parts = decodeCandidate(&sc, &c, parts)
				c.p1 = len(parts)
				cands = append(cands, c)
			}
		case "promptFeedback":
			pf := sc.rawJSON()
			ge.blockReason = pf.Get("blockReason").String()
		case "usageMetadata":
			ge.usage = sc.rawJSON()
		case "modelVersion":
			ge.model = sc.Str()
		case "responseId":
			ge.id = sc.Str()
		case "error":
			ge.errv = sc.rawJSON()
		default:
			sc.Skip()
		}
	}
	return sc.End()
}

// gemPart is one decoded Part: its text (a substring of the event data),
// whether it is a thought, its thoughtSignature and its functionCall.
type gemPart struct {
	text    string
	hasText bool
	thought bool
	sig     string
	call    RawJSON
}

// gemCand is one decoded element of "candidates": its parts are
// gemEvent.parts[p0:p1].
type gemCand struct {
	index        int
	role, finish string
	p0, p1       int
}

// decodeCandidate reads one element of "candidates" into c, appending its
// parts to parts.
func decodeCandidate(sc *jscan, c *gemCand, parts []gemPart) []gemPart {
	for k := range sc.Object() {
		switch k {
		case "index":
			c.index = int(sc.Int())
		case "content":
			for k := range sc.Object() {
				switch k {
				case "role":
					c.role = sc.Str()
				case "parts":
					if !sc.Open('[') {
						sc.Skip()
						break
					}
					for n := 0; sc.Elem(&n); {
						parts = append(parts, decodePart(sc))
					}
				default:
					sc.Skip()
				}
			}
		case "finishReason":
			c.finish = sc.Str()
		default:
			sc.Skip()
		}
	}
	return parts
}

// decodePart reads one Part of a candidate's content.
func decodePart(sc *jscan) gemPart {
	var p gemPart
	for k := range sc.Object() {
		switch k {
		case "text":
			p.text, p.hasText = sc.Str(), true
		case "thought":
			p.thought = sc.True()
		case "thoughtSignature":
			p.sig = sc.Str()
		case "functionCall":
			p.call = sc.rawJSON()
		default:
			sc.Skip()
		}
	}
	return p
}

// add joins one part to the candidate: text to the answer, thought text to
// the reasoning, a function call to the calls.
func (c *gemCandidate) add(p *gemPart, a *Assembly, ev int) {
	switch {
	case p.call != "":
		c.addCall(p.call, p.sig, a, ev)
	case p.hasText && p.thought:
		c.reasoning.WriteString(p.text)
		c.reasonAt.Add(ev)
	case p.hasText:
		c.text.add(p.text, ev)
	}
	if p.sig != "" && p.call == "" {
		c.signature = p.sig
	}
}

// addCall adds the functionCall part call, or continues the call whose
// partialArgs said willContinue.
func (c *gemCandidate) addCall(call RawJSON, sig string, a *Assembly, ev int) {
	r := call.Result()
	var f [5]gjson.Result
	jsontext.GetFields(r, []string{"id", "name", "args", "partialArgs", "willContinue"}, f[:])
	p := c.partial
	if p == nil || f[1].String() != "" && f[1].String() != c.calls[p.call].Name {
		args := f[2].Raw
		if args != "" {
			args = compactJSON(args)
		}
		c.calls = append(c.calls, ToolCall{Index: len(c.calls), ID: f[0].String(), Name: f[1].String(), Arguments: args, Signature: sig})
		c.calls[len(c.calls)-1].Born.Add(ev)
		p = nil
		if f[3].IsArray() {
			p = &gemPartial{call: len(c.calls) - 1, vals: map[string]*strings.Builder{}, str: map[string]bool{}}
		}
	} else {
		c.calls[p.call].Born.Add(ev)
		if sig != "" && c.calls[p.call].Signature == "" {
			c.calls[p.call].Signature = sig
		}
	}
	if p != nil {
		f[3].ForEach(func(_, pa gjson.Result) bool {
			p.add(pa)
			return true
		})
		c.calls[p.call].Arguments = p.json()
	}
	c.partial = nil
	if p != nil && f[4].Bool() {
		c.partial = p
	}
}

// add joins one PartialArg: its typed value at its JSON path, strings
// continuing a string already begun at the same path.
func (p *gemPartial) add(pa gjson.Result) {
	path := pa.Get("jsonPath").String()
	b := p.vals[path]
	if b == nil {
		b = new(strings.Builder)
		p.vals[path] = b
		p.paths = append(p.paths, path)
	}
	switch {
	case pa.Get("stringValue").Exists():
		p.str[path] = true
		b.WriteString(pa.Get("stringValue").String())
	case pa.Get("numberValue").Exists():
		b.WriteString(pa.Get("numberValue").Raw)
	case pa.Get("boolValue").Exists():
		b.WriteString(pa.Get("boolValue").Raw)
	case pa.Get("nullValue").Exists():
		b.WriteString("null")
	}
}

// json renders the arguments joined so far as a JSON object, nesting
// dotted paths ($.a.b) into objects.
func (p *gemPartial) json() string {
	type node struct {
		keys []string
		kids map[string]*node
		val  string
		leaf bool
	}
	root := &node{kids: map[string]*node{}}
	for _, path := range p.paths {
		n := root
		for _, k := range strings.Split(strings.TrimPrefix(strings.TrimPrefix(path, "$"), "."), ".") {
			kid := n.kids[k]
			if kid == nil {
				kid = &node{kids: map[string]*node{}}
				n.kids[k] = kid
				n.keys = append(n.keys, k)
			}
			n = kid
		}
		n.leaf, n.val = true, p.vals[path].String()
		if p.str[path] {
			n.val = string(tape.AppendJSONString(nil, n.val))
		}
	}
	var b strings.Builder
	var write func(n *node)
	write = func(n *node) {
		if n.leaf {
			b.WriteString(n.val)
			return
		}
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(tape.AppendJSONString(nil, k))
			b.WriteByte(':')
			write(n.kids[k])
		}
		b.WriteByte('}')
	}
	write(root)
	return b.String()
}

// compactJSON removes the insignificant whitespace of a valid JSON text
// (pretty-printed arguments of the JSON-array form).
func compactJSON(s string) string {
	if !strings.ContainsAny(s, " \t\r\n") {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, []byte(s)) != nil {
		return s
	}
	return b.String()
}

// finishNames are the FinishReason enum's names by number, for streams
// requested with enum-encoding=int (google.ai.generativelanguage.v1beta
// Candidate.FinishReason; only the stable first values are mapped).
var finishNames = [...]string{"FINISH_REASON_UNSPECIFIED", "STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "OTHER"}

// finishName returns the name of a finishReason sent as a number, or the
// reason as sent.
func finishName(f string) string {
	if n, err := strconv.Atoi(f); err == nil && n >= 0 && n < len(finishNames) {
		return finishNames[n]
	}
	return f
}

// geminiError renders a Google API error object ({code, message, status}).
func geminiError(r gjson.Result) string {
	if e := r.Get("error"); e.Exists() {
		r = e
	}
	return errorText(r, []string{"code", "status", "message"}, " ")
}
