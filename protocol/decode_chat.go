package protocol

// ChatChunk is one decoded Chat Completions event.
type ChatChunk struct {
	// Valid is false when the data is not JSON (or is [DONE]).
	Valid bool
	// Done is true for the [DONE] terminator.
	Done bool
	// Choices is the kind of the "choices" value (absent when missing),
	// ChoicesArray whether it is an array.
	Choices      Kind
	ChoicesArray bool
	// d0 and d1 index ChatSide.deltas: the decoded choices.
	d0, d1 int32
	// ID, Model and Object are the "id", "model" and "object" strings.
	ID     string
	Model  string
	Object string
	// Err is the top-level "error" value, Usage the "usage" value and Groq
	// Groq's "x_groq" extension object.
	Err   Value
	Usage Value
	Groq  Value
}

// ChatDelta is one decoded element of "choices".
type ChatDelta struct {
	// Index is the choice's "index" and FinishReason its "finish_reason".
	Index        int
	FinishReason string
	// Delta is the raw "delta" object (for evidence).
	Delta string
	// Role is the delta's "role".
	Role string
	// texts and kinds hold the content, reasoning_content, reasoning and
	// refusal values (see the accessors below) as Value's s and k, apart so
	// that the kinds pack into one word: the record is 136 bytes, not 192.
	texts [4]string
	kinds [4]Kind
	// ToolCalls is the shape of the "tool_calls" value.
	ToolCalls Shape
	// ReasoningDetails is OpenRouter's "reasoning_details" value.
	ReasoningDetails Value
	// VSCodeReasoning is set when the delta has one of the cot_summary,
	// reasoning_text and thinking fields VS Code reads.
	VSCodeReasoning bool
	t0, t1          int32
}

// Indexes of ChatDelta.texts and kinds.
const (
	dContent = iota
	dReasoningContent
	dReasoning
	dRefusal
)

func (d *ChatDelta) set(i int, v Value) { d.texts[i], d.kinds[i] = v.s, v.k }

func (d *ChatDelta) get(i int) Value { return Value{s: d.texts[i], k: d.kinds[i]} }

// Content returns the delta's "content" value.
func (d *ChatDelta) Content() Value { return d.get(dContent) }

// ReasoningContent returns the delta's "reasoning_content" value.
func (d *ChatDelta) ReasoningContent() Value { return d.get(dReasoningContent) }

// Reasoning returns the delta's "reasoning" value.
func (d *ChatDelta) Reasoning() Value { return d.get(dReasoning) }

// Refusal returns the delta's "refusal" value.
func (d *ChatDelta) Refusal() Value { return d.get(dRefusal) }

// ChatToolDelta is one decoded element of "tool_calls".
type ChatToolDelta struct {
	// Raw is the element's JSON text (for evidence).
	Raw string
	// Index is its "index", HasIndex whether it had one.
	Index    int
	HasIndex bool
	// ID, Name and Args are "id", "function.name" and "function.arguments".
	ID   string
	Name string
	Args Value
}

// ChatSide holds the decoded events of a Chat Completions side, in event
// order, with the choice and tool deltas in shared arenas. When pre is set,
// the first k events have the same data as pre's and their records are
// pre's (which is read-only once decoded): chunks then holds the records of
// events k on, and deltas and tools those from index nd and nt on, the
// counts the first k events use. Read records through Chunk,
// ChoiceDeltas and ToolDeltas.
type ChatSide struct {
	chunks []ChatChunk
	deltas []ChatDelta
	tools  []ChatToolDelta

	pre       *ChatSide
	k, nd, nt int
}

// Chunk returns the record of event i.
func (s *ChatSide) Chunk(i int) *ChatChunk {
	if i < s.k {
		return s.pre.Chunk(i)
	}
	return &s.chunks[i-s.k]
}

// ChoiceDeltas returns the decoded choices of c, a record of this side.
func (s *ChatSide) ChoiceDeltas(c *ChatChunk) []ChatDelta {
	if s.pre != nil && int(c.d1) <= s.nd {
		return s.pre.ChoiceDeltas(c)
	}
	return s.deltas[int(c.d0)-s.nd : int(c.d1)-s.nd]
}

// ToolDeltas returns the decoded tool calls of d, a choice of this side.
func (s *ChatSide) ToolDeltas(d *ChatDelta) []ChatToolDelta {
	if s.pre != nil && int(d.t1) <= s.nt {
		return s.pre.ToolDeltas(d)
	}
	return s.tools[int(d.t0)-s.nt : int(d.t1)-s.nt]
}

// deltaAt returns delta i of the side's index space.
func (s *ChatSide) deltaAt(i int) *ChatDelta {
	if s.pre != nil && i < s.nd {
		return s.pre.deltaAt(i)
	}
	return &s.deltas[i-s.nd]
}

// decodeChat decodes every event of a side as a Chat Completions chunk.
// The first k events have the same data as the first k of the side from:
// their records are from's instead of decoded again.
func decodeChat(events []Event, from *ChatSide, k int) *ChatSide {
	s := &ChatSide{}
	if k > 0 {
		s.pre, s.k = from, k
		// Records index deltas and tools in event order, so the first k
		// events use a prefix of each, up to the last valid record's end
		// (invalid and [DONE] records index nothing).
		for j := k - 1; j >= 0; j-- {
			if c := from.Chunk(j); c.Valid {
				s.nd = int(c.d1)
				break
			}
		}
		if s.nd > 0 {
			s.nt = int(from.deltaAt(s.nd - 1).t1)
		}
	}
	s.chunks = make([]ChatChunk, len(events)-k)
	s.deltas = make([]ChatDelta, 0, len(events)-k)
	for i := k; i < len(events); i++ {
		s.decodeChunk(&s.chunks[i-k], events[i].Data)
	}
	return s
}

// DecodeChatData decodes one payload on its own (VS Code reads lines that
// do not always coincide with events).
func DecodeChatData(data string) (*ChatSide, *ChatChunk) {
	s := &ChatSide{chunks: make([]ChatChunk, 1)}
	s.decodeChunk(&s.chunks[0], data)
	return s, &s.chunks[0]
}

func (s *ChatSide) decodeChunk(c *ChatChunk, data string) {
	if IsDone(data) {
		c.Done = true
		return
	}
	d0, t0 := len(s.deltas), len(s.tools)
	sc := scanOf(data)
	v := c
	v.d0 = int32(s.nd + d0)
	if sc.Open('{') {
		for k := range sc.Members() {
			switch k {
			case "id":
				v.ID = sc.Str()
			case "model":
				v.Model = sc.Str()
			case "error":
				v.Err = sc.jv()
			case "usage":
				v.Usage = sc.jv()
			case "object":
				v.Object = sc.Str()
			case "x_groq":
				v.Groq = sc.jv()
			case "choices":
				v.ChoicesArray = sc.Peek() == '['
				v.Choices = s.decodeChoices(&sc)
			default:
				sc.Skip()
			}
		}
	} else {
		sc.Skip()
	}
	if !sc.End() {
		s.deltas, s.tools = s.deltas[:d0], s.tools[:t0]
		*c = ChatChunk{}
		return
	}
	v.Valid = true
	v.d1 = int32(s.nd + len(s.deltas))
}

// decodeChoices reads the "choices" value, appending one delta per element
// (or member, or one for a scalar, as gjson's ForEach visits them), and
// returns its kind.
func (s *ChatSide) decodeChoices(sc *jscan) Kind {
	n := 0
	switch sc.Peek() {
	case '[':
		sc.Open('[')
		for sc.Elem(&n) {
			s.deltas = append(s.deltas, ChatDelta{})
			s.decodeDelta(sc, &s.deltas[len(s.deltas)-1])
		}
	case '{':
		sc.Open('{')
		for range sc.Members() {
			s.deltas = append(s.deltas, ChatDelta{})
			s.decodeDelta(sc, &s.deltas[len(s.deltas)-1])
		}
	default:
		v := sc.Value()
		t := int32(s.nt + len(s.tools))
		s.deltas = append(s.deltas, ChatDelta{t0: t, t1: t})
		return Kind(v.Kind)
	}
	return jJSON
}

// decodeDelta reads one element of "choices".
func (s *ChatSide) decodeDelta(sc *jscan, d *ChatDelta) {
	t0 := len(s.tools)
	if sc.Open('{') {
		for k := range sc.Members() {
			switch k {
			case "index":
				d.Index = int(sc.Int())
			case "finish_reason":
				d.FinishReason = sc.Str()
			case "delta":
				start := sc.Mark()
				if sc.Open('{') {
					s.decodeDeltaFields(sc, d, t0)
				} else {
					sc.Skip()
				}
				d.Delta = sc.Since(start)
			default:
				sc.Skip()
			}
		}
	} else {
		sc.Skip()
	}
	d.t0, d.t1 = int32(s.nt+t0), int32(s.nt+len(s.tools))
}

// decodeDeltaFields reads the members of a choice's "delta" object. The
// tools of the last "tool_calls" array seen win, as in a ForEach pass.
func (s *ChatSide) decodeDeltaFields(sc *jscan, d *ChatDelta, t0 int) {
	for k := range sc.Members() {
		switch k {
		case "role":
			d.Role = sc.Str()
		case "content":
			d.set(dContent, sc.jv())
		case "reasoning_content":
			d.set(dReasoningContent, sc.jv())
		case "reasoning":
			d.set(dReasoning, sc.jv())
		case "refusal":
			d.set(dRefusal, sc.jv())
		case "reasoning_details":
			d.ReasoningDetails = sc.jv()
		case "cot_summary", "reasoning_text", "thinking":
			d.VSCodeReasoning = true
			sc.Skip()
		case "tool_calls":
			if !sc.Open('[') {
				d.ToolCalls = Shape{k: Kind(sc.Value().Kind)}
				break
			}
			s.tools = s.tools[:t0]
			for m := 0; sc.Elem(&m); {
				s.tools = append(s.tools, decodeTool(sc))
			}
			d.ToolCalls = Shape{k: jJSON, arr: true}
		default:
			sc.Skip()
		}
	}
}

// decodeTool reads one element of "tool_calls".
func decodeTool(sc *jscan) ChatToolDelta {
	var t ChatToolDelta
	start := sc.Mark()
	if sc.Open('{') {
		for k := range sc.Members() {
			switch k {
			case "index":
				t.Index, t.HasIndex = int(sc.Int()), true
			case "id":
				t.ID = sc.Str()
			case "function":
				if !sc.Open('{') {
					sc.Skip()
					break
				}
				for k := range sc.Members() {
					switch k {
					case "name":
						t.Name = sc.Str()
					case "arguments":
						t.Args = sc.jv()
					default:
						sc.Skip()
					}
				}
			default:
				sc.Skip()
			}
		}
	} else {
		sc.Skip()
	}
	t.Raw = sc.Since(start)
	return t
}
