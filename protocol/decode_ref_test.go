package protocol

import (
	"github.com/tidwall/gjson"
)

// The gjson-based decoders that decode.go replaced, kept as the reference
// the single-pass scanner is checked against (decode_test.go).

func (s *ChatSide) refDecodeChunk(c *ChatChunk, data string) {
	if IsDone(data) {
		c.Done = true
		return
	}
	if !gjson.Valid(data) {
		return
	}
	c.Valid = true
	c.d0 = int32(len(s.deltas))
	gjson.Parse(data).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "id":
			c.ID = v.String()
		case "model":
			c.Model = v.String()
		case "error":
			c.Err = mkjv(v)
		case "usage":
			c.Usage = mkjv(v)
		case "object":
			c.Object = v.String()
		case "x_groq":
			c.Groq = mkjv(v)
		case "choices":
			c.Choices, c.ChoicesArray = mkjv(v).k, v.IsArray()
			v.ForEach(func(_, ch gjson.Result) bool {
				s.deltas = append(s.deltas, s.refDecodeDelta(ch))
				return true
			})
		}
		return true
	})
	c.d1 = int32(len(s.deltas))
}

func (s *ChatSide) refDecodeDelta(ch gjson.Result) ChatDelta {
	var d ChatDelta
	var tcs gjson.Result
	ch.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "index":
			d.Index = int(v.Int())
		case "finish_reason":
			d.FinishReason = v.String()
		case "delta":
			d.Delta = v.Raw
			v.ForEach(func(k, v gjson.Result) bool {
				switch k.Str {
				case "role":
					d.Role = v.String()
				case "content":
					d.set(dContent, mkjv(v))
				case "reasoning_content":
					d.set(dReasoningContent, mkjv(v))
				case "reasoning":
					d.set(dReasoning, mkjv(v))
				case "refusal":
					d.set(dRefusal, mkjv(v))
				case "reasoning_details":
					d.ReasoningDetails = mkjv(v)
				case "cot_summary", "reasoning_text", "thinking":
					d.VSCodeReasoning = true
				case "tool_calls":
					d.ToolCalls = shapeOf(mkjv(v))
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
			t := ChatToolDelta{Raw: tc.Raw}
			tc.ForEach(func(k, v gjson.Result) bool {
				switch k.Str {
				case "index":
					t.Index, t.HasIndex = int(v.Int()), true
				case "id":
					t.ID = v.String()
				case "function":
					v.ForEach(func(k, v gjson.Result) bool {
						switch k.Str {
						case "name":
							t.Name = v.String()
						case "arguments":
							t.Args = mkjv(v)
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
	ObjEvent
	delta, item, response, errv, contentBlock, message, usage, text, arguments, refusal gjson.Result
}

func refDecodeObjEvent(o *refObjEvent, data string) {
	if IsDone(data) || !gjson.Valid(data) {
		return
	}
	o.Valid = true
	gjson.Parse(data).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			o.Type = v.String()
		case "index":
			o.Index = int(v.Int())
		case "output_index":
			o.OutputIndex = int(v.Int())
		case "content_index":
			o.ContentIndex, o.HasContentIndex = int(v.Int()), true
		case "item_id":
			o.ItemID = v.String()
		case "sequence_number":
			o.Seq, o.HasSeq = v.Int(), true
		case "delta":
			o.delta = v
			if v.IsObject() {
				v.ForEach(func(k, v gjson.Result) bool {
					switch k.Str {
					case "type":
						o.DeltaType = v.String()
					case "text":
						o.DeltaText = v.String()
					case "thinking":
						o.DeltaThinking = v.String()
					case "partial_json":
						o.DeltaPartial = v.String()
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
func mkjv(v gjson.Result) Value {
	switch v.Type {
	case gjson.String:
		return Value{s: v.Str, k: jString}
	case gjson.Null:
		if !v.Exists() {
			return Value{}
		}
		return Value{k: jNull}
	case gjson.True, gjson.False:
		return Value{s: v.Raw, k: jBool}
	case gjson.Number:
		return Value{s: v.Raw, k: jNumber}
	}
	return Value{s: v.Raw, k: jJSON}
}

// shapeOf keeps only the kind of v.
func shapeOf(v Value) Shape { return Shape{k: v.k, arr: v.IsArray()} }
