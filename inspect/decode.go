package inspect

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Every event payload is decoded once per side, in one pass per JSON level,
// into the small records below; the assembler, the client emulators and
// the detectors all read these records instead of re-parsing the payload
// with path lookups. Strings are substrings of the event data (gjson does
// not copy unescaped strings), so decoding allocates little.

// chatChunk is one decoded Chat Completions event.
type chatChunk struct {
	// valid is false when the data is not JSON (or is [DONE]).
	valid bool
	// done is true for the [DONE] terminator.
	done bool
	// choices is the kind of the "choices" value, errv the top-level
	// "error" value, usage the "usage" value (each absent when missing).
	choices jkind
	// deltas indexes chatSide.deltas: the decoded choices.
	d0, d1 int32
	id     string
	model  string
	errv   jv
	usage  jv
}

// chatDelta is one decoded element of "choices".
type chatDelta struct {
	index        int
	finishReason string
	// delta is the raw "delta" object (for evidence).
	delta string
	role  string
	// texts and kinds hold the content, reasoning_content, reasoning and
	// refusal values (see the accessors below) as jv's s and k, apart so
	// that the kinds pack into one word: the record is 136 bytes, not 192.
	texts [4]string
	kinds [4]jkind
	// toolCalls is the shape of the "tool_calls" value.
	toolCalls jshape
	// vscodeReasoning is set when the delta has one of the cot_summary,
	// reasoning_text and thinking fields VS Code reads.
	vscodeReasoning bool
	t0, t1          int32
}

// Indexes of chatDelta.texts and kinds.
const (
	dContent = iota
	dReasoningContent
	dReasoning
	dRefusal
)

func (d *chatDelta) set(i int, v jv) { d.texts[i], d.kinds[i] = v.s, v.k }

func (d *chatDelta) get(i int) jv { return jv{s: d.texts[i], k: d.kinds[i]} }

// content returns the delta's "content" value.
func (d *chatDelta) content() jv { return d.get(dContent) }

// reasoningContent returns the delta's "reasoning_content" value.
func (d *chatDelta) reasoningContent() jv { return d.get(dReasoningContent) }

// reasoning returns the delta's "reasoning" value.
func (d *chatDelta) reasoning() jv { return d.get(dReasoning) }

// refusal returns the delta's "refusal" value.
func (d *chatDelta) refusal() jv { return d.get(dRefusal) }

// jshape is the kind of a value whose text is not kept, arrays told apart
// from objects.
type jshape struct {
	k   jkind
	arr bool
}

func (t jshape) exists() bool  { return t.k != jAbsent }
func (t jshape) isNull() bool  { return t.k == jNull }
func (t jshape) isArray() bool { return t.arr }

// chatToolDelta is one decoded element of "tool_calls".
type chatToolDelta struct {
	raw      string
	index    int
	hasIndex bool
	id       string
	name     string
	args     jv
}

// chatSide holds the decoded events of a Chat Completions side, in event
// order, with the choice and tool deltas in shared arenas. When pre is set,
// the first k events have the same data as pre's and their records are
// pre's (which is read-only once decoded): chunks then holds the records of
// events k on, and deltas and tools those from index nd and nt on, the
// counts the first k events use. Read records through chunk,
// choiceDeltas and toolDeltas.
type chatSide struct {
	chunks []chatChunk
	deltas []chatDelta
	tools  []chatToolDelta

	pre       *chatSide
	k, nd, nt int
}

// chunk returns the record of event i.
func (s *chatSide) chunk(i int) *chatChunk {
	if i < s.k {
		return s.pre.chunk(i)
	}
	return &s.chunks[i-s.k]
}

func (s *chatSide) choiceDeltas(c *chatChunk) []chatDelta {
	if s.pre != nil && int(c.d1) <= s.nd {
		return s.pre.choiceDeltas(c)
	}
	return s.deltas[int(c.d0)-s.nd : int(c.d1)-s.nd]
}

func (s *chatSide) toolDeltas(d *chatDelta) []chatToolDelta {
	if s.pre != nil && int(d.t1) <= s.nt {
		return s.pre.toolDeltas(d)
	}
	return s.tools[int(d.t0)-s.nt : int(d.t1)-s.nt]
}

// deltaAt returns delta i of the side's index space.
func (s *chatSide) deltaAt(i int) *chatDelta {
	if s.pre != nil && i < s.nd {
		return s.pre.deltaAt(i)
	}
	return &s.deltas[i-s.nd]
}

// decodeChat decodes every event of a side as a Chat Completions chunk.
// The first k events have the same data as the first k of the side from:
// their records are from's instead of decoded again.
func decodeChat(events []Event, from *chatSide, k int) *chatSide {
	s := &chatSide{}
	if k > 0 {
		s.pre, s.k = from, k
		// Records index deltas and tools in event order, so the first k
		// events use a prefix of each, up to the last valid record's end
		// (invalid and [DONE] records index nothing).
		for j := k - 1; j >= 0; j-- {
			if c := from.chunk(j); c.valid {
				s.nd = int(c.d1)
				break
			}
		}
		if s.nd > 0 {
			s.nt = int(from.deltaAt(s.nd - 1).t1)
		}
	}
	s.chunks = make([]chatChunk, len(events)-k)
	s.deltas = make([]chatDelta, 0, len(events)-k)
	for i := k; i < len(events); i++ {
		s.decodeChunk(&s.chunks[i-k], events[i].Data)
	}
	return s
}

// decodeChatData decodes one payload on its own (VS Code reads lines that
// do not always coincide with events).
func decodeChatData(data string) (*chatSide, *chatChunk) {
	s := &chatSide{chunks: make([]chatChunk, 1)}
	s.decodeChunk(&s.chunks[0], data)
	return s, &s.chunks[0]
}

func (s *chatSide) decodeChunk(c *chatChunk, data string) {
	if isDone(data) {
		c.done = true
		return
	}
	d0, t0 := len(s.deltas), len(s.tools)
	sc := jscan{s: data}
	v := c
	v.d0 = int32(s.nd + d0)
	if sc.open('{') {
		for k := range sc.members() {
			switch k {
			case "id":
				v.id = sc.str()
			case "model":
				v.model = sc.str()
			case "error":
				v.errv = sc.jv()
			case "usage":
				v.usage = sc.jv()
			case "choices":
				v.choices = s.decodeChoices(&sc)
			default:
				sc.skip()
			}
		}
	} else {
		sc.skip()
	}
	if !sc.end() {
		s.deltas, s.tools = s.deltas[:d0], s.tools[:t0]
		*c = chatChunk{}
		return
	}
	v.valid = true
	v.d1 = int32(s.nd + len(s.deltas))
}

// decodeChoices reads the "choices" value, appending one delta per element
// (or member, or one for a scalar, as gjson's ForEach visits them), and
// returns its kind.
func (s *chatSide) decodeChoices(sc *jscan) jkind {
	n := 0
	switch sc.peek() {
	case '[':
		sc.i++
		for sc.elem(&n) {
			s.deltas = append(s.deltas, chatDelta{})
			s.decodeDelta(sc, &s.deltas[len(s.deltas)-1])
		}
	case '{':
		sc.i++
		for range sc.members() {
			s.deltas = append(s.deltas, chatDelta{})
			s.decodeDelta(sc, &s.deltas[len(s.deltas)-1])
		}
	default:
		v := sc.val()
		t := int32(s.nt + len(s.tools))
		s.deltas = append(s.deltas, chatDelta{t0: t, t1: t})
		return v.k
	}
	return jJSON
}

// decodeDelta reads one element of "choices".
func (s *chatSide) decodeDelta(sc *jscan, d *chatDelta) {
	t0 := len(s.tools)
	if sc.open('{') {
		for k := range sc.members() {
			switch k {
			case "index":
				d.index = int(sc.int())
			case "finish_reason":
				d.finishReason = sc.str()
			case "delta":
				start := jsWS(sc.s, sc.i)
				if sc.open('{') {
					s.decodeDeltaFields(sc, d, t0)
				} else {
					sc.skip()
				}
				d.delta = sc.s[start:sc.i]
			default:
				sc.skip()
			}
		}
	} else {
		sc.skip()
	}
	d.t0, d.t1 = int32(s.nt+t0), int32(s.nt+len(s.tools))
}

// decodeDeltaFields reads the members of a choice's "delta" object. The
// tools of the last "tool_calls" array seen win, as in a ForEach pass.
func (s *chatSide) decodeDeltaFields(sc *jscan, d *chatDelta, t0 int) {
	for k := range sc.members() {
		switch k {
		case "role":
			d.role = sc.str()
		case "content":
			d.set(dContent, sc.jv())
		case "reasoning_content":
			d.set(dReasoningContent, sc.jv())
		case "reasoning":
			d.set(dReasoning, sc.jv())
		case "refusal":
			d.set(dRefusal, sc.jv())
		case "cot_summary", "reasoning_text", "thinking":
			d.vscodeReasoning = true
			sc.skip()
		case "tool_calls":
			if !sc.open('[') {
				d.toolCalls = jshape{k: sc.val().k}
				break
			}
			s.tools = s.tools[:t0]
			for m := 0; sc.elem(&m); {
				s.tools = append(s.tools, decodeTool(sc))
			}
			d.toolCalls = jshape{k: jJSON, arr: true}
		default:
			sc.skip()
		}
	}
}

// decodeTool reads one element of "tool_calls".
func decodeTool(sc *jscan) chatToolDelta {
	var t chatToolDelta
	start := jsWS(sc.s, sc.i)
	if sc.open('{') {
		for k := range sc.members() {
			switch k {
			case "index":
				t.index, t.hasIndex = int(sc.int()), true
			case "id":
				t.id = sc.str()
			case "function":
				if !sc.open('{') {
					sc.skip()
					break
				}
				for k := range sc.members() {
					switch k {
					case "name":
						t.name = sc.str()
					case "arguments":
						t.args = sc.jv()
					default:
						sc.skip()
					}
				}
			default:
				sc.skip()
			}
		}
	} else {
		sc.skip()
	}
	t.raw = sc.s[start:sc.i]
	return t
}

// objEvent is one decoded Responses or Anthropic event: the top-level
// fields those protocols route by, and the nested values as raw results
// for the rarer events that need them.
type objEvent struct {
	valid        bool
	typ          string
	index        int
	outputIndex  int
	contentIndex int
	hasContentIx bool
	itemID       string
	seq          int64
	hasSeq       bool
	// delta is the "delta" value: a string (Responses) or an object
	// (Anthropic).
	delta jraw
	// dtype, dText, dThinking and dPartial are the Anthropic delta's type
	// and its text, thinking and partial_json strings.
	dtype     string
	dText     string
	dThinking string
	dPartial  string
	// Nested values, "" when absent.
	item, response, errv, contentBlock, message, usage jraw
	// text, arguments and refusal of the *.done events.
	text, arguments, refusal jraw
}

// jraw is the raw JSON text of a value of a validated payload, "" when the
// value is absent. It is 16 bytes where a gjson.Result is 80, and gives the
// Result (as ForEach yields it, but for Index) when asked.
type jraw string

// res returns the value as a gjson.Result.
func (j jraw) res() gjson.Result {
	if j == "" {
		return gjson.Result{}
	}
	return gjson.Parse(string(j))
}

// Get is res().Get(path).
func (j jraw) Get(path string) gjson.Result { return gjson.Get(string(j), path) }

// String is res().String().
func (j jraw) String() string {
	if j == "" {
		return ""
	}
	if j[0] == '"' && strings.IndexByte(string(j), '\\') < 0 {
		return string(j[1 : len(j)-1])
	}
	return j.res().String()
}

// Exists is res().Exists().
func (j jraw) Exists() bool { return j != "" }

// IsObject is res().IsObject().
func (j jraw) IsObject() bool { return j != "" && j[0] == '{' }

// decodeObj decodes every event of a side as a typed JSON event, copying
// the first k records from from (see decodeChat).
func decodeObj(events []Event, from []objEvent, k int) []objEvent {
	out := make([]objEvent, len(events))
	copy(out, from[:k])
	for i := k; i < len(events); i++ {
		decodeObjEvent(&out[i], events[i].Data)
	}
	return out
}

func decodeObjEvent(o *objEvent, data string) {
	if isDone(data) {
		return
	}
	sc := jscan{s: data}
	var v objEvent
	if sc.open('{') {
		for k := range sc.members() {
			switch k {
			case "type":
				v.typ = sc.str()
			case "index":
				v.index = int(sc.int())
			case "output_index":
				v.outputIndex = int(sc.int())
			case "content_index":
				v.contentIndex, v.hasContentIx = int(sc.int()), true
			case "item_id":
				v.itemID = sc.str()
			case "sequence_number":
				v.seq, v.hasSeq = sc.int(), true
			case "delta":
				off := jsWS(sc.s, sc.i)
				if !sc.open('{') {
					v.delta = sc.raw()
					break
				}
				decodeObjDelta(&sc, &v)
				v.delta = jraw(sc.s[off:sc.i])
			case "item":
				v.item = sc.raw()
			case "response":
				v.response = sc.raw()
			case "error":
				v.errv = sc.raw()
			case "content_block":
				v.contentBlock = sc.raw()
			case "message":
				v.message = sc.raw()
			case "usage":
				v.usage = sc.raw()
			case "text":
				v.text = sc.raw()
			case "arguments":
				v.arguments = sc.raw()
			case "refusal":
				v.refusal = sc.raw()
			default:
				sc.skip()
			}
		}
	} else {
		sc.skip()
	}
	if !sc.end() {
		return
	}
	v.valid = true
	*o = v
}

// decodeObjDelta reads the members of an object "delta".
func decodeObjDelta(sc *jscan, o *objEvent) {
	for k := range sc.members() {
		switch k {
		case "type":
			o.dtype = sc.str()
		case "text":
			o.dText = sc.str()
		case "thinking":
			o.dThinking = sc.str()
		case "partial_json":
			o.dPartial = sc.str()
		default:
			sc.skip()
		}
	}
}

// jv is a decoded JSON value: its kind and, for a string, its value, for
// anything else its raw JSON text.
type jv struct {
	s string
	k jkind
}

// jkind is the kind of a jv; the zero value is an absent value.
type jkind uint8

const (
	jAbsent jkind = iota
	jNull
	jBool
	jNumber
	jString
	jJSON // object or array
)

func (v jv) exists() bool    { return v.k != jAbsent }
func (k jkind) exists() bool { return k != jAbsent }
func (k jkind) isNull() bool { return k == jNull }
func (v jv) isString() bool  { return v.k == jString }
func (v jv) isArray() bool   { return v.k == jJSON && v.s[0] == '[' }
func (v jv) isObject() bool  { return v.k == jJSON && v.s[0] == '{' }

// str returns the value as gjson's Result.String does: the string, ""
// for null or absent, the raw text otherwise.
func (v jv) str() string {
	if v.k == jNull {
		return ""
	}
	return v.s
}

// result returns the value as a gjson.Result, for the rare paths that
// walk into it.
func (v jv) result() gjson.Result {
	switch v.k {
	case jAbsent:
		return gjson.Result{}
	case jString:
		return gjson.Result{Type: gjson.String, Str: v.s, Raw: strconv.Quote(v.s)}
	}
	return gjson.Parse(v.s)
}
