package inspect

import "github.com/tidwall/gjson"

// The gjson-based decoders that decode.go replaced, kept as the reference
// the single-pass scanner is checked against (decode_test.go).

func (s *chatSide) refDecodeChunk(c *chatChunk, data string) {
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
			c.choices = mkjv(v).k
			v.ForEach(func(_, ch gjson.Result) bool {
				s.deltas = append(s.deltas, s.refDecodeDelta(ch))
				return true
			})
		}
		return true
	})
	c.d1 = int32(len(s.deltas))
}

func (s *chatSide) refDecodeDelta(ch gjson.Result) chatDelta {
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
					d.set(dContent, mkjv(v))
				case "reasoning_content":
					d.set(dReasoningContent, mkjv(v))
				case "reasoning":
					d.set(dReasoning, mkjv(v))
				case "refusal":
					d.set(dRefusal, mkjv(v))
				case "cot_summary", "reasoning_text", "thinking":
					d.vscodeReasoning = true
				case "tool_calls":
					d.toolCalls = shapeOf(mkjv(v))
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

// refObjEvent is objEvent as the gjson decoder filled it, with the nested
// values as gjson.Results.
type refObjEvent struct {
	objEvent
	delta, item, response, errv, contentBlock, message, usage, text, arguments, refusal gjson.Result
}

func refDecodeObjEvent(o *refObjEvent, data string) {
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

// mkjv converts a gjson value to a jv, as the scanner reads it.
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

// shapeOf keeps only the kind of v.
func shapeOf(v jv) jshape { return jshape{k: v.k, arr: v.isArray()} }
