package inspect

import "github.com/tidwall/gjson"

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
	done  bool
	id    string
	model string
	// errv is the top-level "error" value, choices the "choices" value,
	// usage the "usage" value (each absent when missing).
	errv    jv
	choices jv
	usage   jv
	// deltas indexes chatSide.deltas: the decoded choices.
	d0, d1 int32
}

// chatDelta is one decoded element of "choices".
type chatDelta struct {
	index        int
	finishReason string
	// delta is the raw "delta" object (for evidence).
	delta            string
	role             string
	content          jv
	reasoningContent jv
	reasoning        jv
	refusal          jv
	toolCalls        jv
	// vscodeReasoning is set when the delta has one of the cot_summary,
	// reasoning_text and thinking fields VS Code reads.
	vscodeReasoning bool
	t0, t1          int32
}

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
// order, with the choice and tool deltas in shared arenas.
type chatSide struct {
	chunks []chatChunk
	deltas []chatDelta
	tools  []chatToolDelta
}

func (s *chatSide) choiceDeltas(c *chatChunk) []chatDelta { return s.deltas[c.d0:c.d1] }

func (s *chatSide) toolDeltas(d *chatDelta) []chatToolDelta { return s.tools[d.t0:d.t1] }

// decodeChat decodes every event of a side as a Chat Completions chunk.
func decodeChat(events []Event) *chatSide {
	s := &chatSide{chunks: make([]chatChunk, len(events)), deltas: make([]chatDelta, 0, len(events))}
	for i := range events {
		s.decodeChunk(&s.chunks[i], events[i].Data)
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
	if !gjson.Valid(data) {
		return
	}
	c.valid = true
	c.d0 = int32(len(s.deltas))
	gjson.Parse(data).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "id":
			c.id = v.String()
		case "model":
			c.model = v.String()
		case "error":
			c.errv = mkjv(v)
		case "usage":
			c.usage = mkjv(v)
		case "choices":
			c.choices = mkjv(v)
			v.ForEach(func(_, ch gjson.Result) bool {
				s.deltas = append(s.deltas, s.decodeDelta(ch))
				return true
			})
		}
		return true
	})
	c.d1 = int32(len(s.deltas))
}

func (s *chatSide) decodeDelta(ch gjson.Result) chatDelta {
	var d chatDelta
	var tcs gjson.Result
	ch.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "index":
			d.index = int(v.Int())
		case "finish_reason":
			d.finishReason = v.String()
		case "delta":
			d.delta = v.Raw
			v.ForEach(func(k, v gjson.Result) bool {
				switch k.Str {
				case "role":
					d.role = v.String()
				case "content":
					d.content = mkjv(v)
				case "reasoning_content":
					d.reasoningContent = mkjv(v)
				case "reasoning":
					d.reasoning = mkjv(v)
				case "refusal":
					d.refusal = mkjv(v)
				case "cot_summary", "reasoning_text", "thinking":
					d.vscodeReasoning = true
				case "tool_calls":
					d.toolCalls = mkjv(v)
					if v.IsArray() {
						tcs = v
					}
				}
				return true
			})
		}
		return true
	})
	d.t0 = int32(len(s.tools))
	if tcs.Exists() {
		tcs.ForEach(func(_, tc gjson.Result) bool {
			t := chatToolDelta{raw: tc.Raw}
			tc.ForEach(func(k, v gjson.Result) bool {
				switch k.Str {
				case "index":
					t.index, t.hasIndex = int(v.Int()), true
				case "id":
					t.id = v.String()
				case "function":
					v.ForEach(func(k, v gjson.Result) bool {
						switch k.Str {
						case "name":
							t.name = v.String()
						case "arguments":
							t.args = mkjv(v)
						}
						return true
					})
				}
				return true
			})
			s.tools = append(s.tools, t)
			return true
		})
	}
	d.t1 = int32(len(s.tools))
	return d
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
	delta gjson.Result
	// dtype, dText, dThinking and dPartial are the Anthropic delta's type
	// and its text, thinking and partial_json strings.
	dtype     string
	dText     string
	dThinking string
	dPartial  string
	// Nested values, zero when absent.
	item, response, errv, contentBlock, message, usage gjson.Result
	// text, arguments and refusal of the *.done events.
	text, arguments, refusal gjson.Result
}

// decodeObj decodes every event of a side as a typed JSON event.
func decodeObj(events []Event) []objEvent {
	out := make([]objEvent, len(events))
	for i := range events {
		decodeObjEvent(&out[i], events[i].Data)
	}
	return out
}

func decodeObjEvent(o *objEvent, data string) {
	if isDone(data) || !gjson.Valid(data) {
		return
	}
	o.valid = true
	gjson.Parse(data).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			o.typ = v.String()
		case "index":
			o.index = int(v.Int())
		case "output_index":
			o.outputIndex = int(v.Int())
		case "content_index":
			o.contentIndex, o.hasContentIx = int(v.Int()), true
		case "item_id":
			o.itemID = v.String()
		case "sequence_number":
			o.seq, o.hasSeq = v.Int(), true
		case "delta":
			o.delta = v
			if v.IsObject() {
				v.ForEach(func(k, v gjson.Result) bool {
					switch k.Str {
					case "type":
						o.dtype = v.String()
					case "text":
						o.dText = v.String()
					case "thinking":
						o.dThinking = v.String()
					case "partial_json":
						o.dPartial = v.String()
					}
					return true
				})
			}
		case "item":
			o.item = v
		case "response":
			o.response = v
		case "error":
			o.errv = v
		case "content_block":
			o.contentBlock = v
		case "message":
			o.message = v
		case "usage":
			o.usage = v
		case "text":
			o.text = v
		case "arguments":
			o.arguments = v
		case "refusal":
			o.refusal = v
		}
		return true
	})
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

func mkjv(v gjson.Result) jv {
	switch v.Type {
	case gjson.String:
		return jv{s: v.Str, k: jString}
	case gjson.Null:
		if !v.Exists() {
			return jv{}
		}
		return jv{k: jNull}
	case gjson.True, gjson.False:
		return jv{s: v.Raw, k: jBool}
	case gjson.Number:
		return jv{s: v.Raw, k: jNumber}
	}
	return jv{s: v.Raw, k: jJSON}
}

func (v jv) exists() bool   { return v.k != jAbsent }
func (v jv) isString() bool { return v.k == jString }
func (v jv) isNull() bool   { return v.k == jNull }
func (v jv) isArray() bool  { return v.k == jJSON && v.s[0] == '[' }
func (v jv) isObject() bool { return v.k == jJSON && v.s[0] == '{' }

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
		return gjson.Result{Type: gjson.String, Str: v.s, Raw: strconvQuote(v.s)}
	}
	return gjson.Parse(v.s)
}
