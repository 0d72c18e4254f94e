package protocol

// ObjEvent is one decoded Responses or Anthropic event: the top-level
// fields those protocols route by, and the nested values as raw results
// for the rarer events that need them.
type ObjEvent struct {
	// Valid is false when the data is not a JSON document.
	Valid bool
	// Type is the payload's "type".
	Type string
	// Index, OutputIndex, ContentIndex, ItemID and Seq are "index",
	// "output_index", "content_index", "item_id" and "sequence_number";
	// HasContentIndex and HasSeq say whether the last two were present.
	Index           int
	OutputIndex     int
	ContentIndex    int
	HasContentIndex bool
	ItemID          string
	Seq             int64
	HasSeq          bool
	// Delta is the "delta" value: a string (Responses) or an object
	// (Anthropic).
	Delta RawJSON
	// DeltaType, DeltaText, DeltaThinking and DeltaPartial are the
	// Anthropic delta's type and its text, thinking and partial_json
	// strings.
	DeltaType     string
	DeltaText     string
	DeltaThinking string
	DeltaPartial  string
	// Item, Response, Err, ContentBlock, Message and Usage are the nested
	// "item", "response", "error", "content_block", "message" and "usage"
	// values, "" when absent.
	Item, Response, Err, ContentBlock, Message, Usage RawJSON
	// Text, Arguments and Refusal of the *.done events.
	Text, Arguments, Refusal RawJSON
}

// decodeObj decodes every event of a side as a typed JSON event, copying
// the first k records from from (see decodeChat).
func decodeObj(events []Event, from []ObjEvent, k int) []ObjEvent {
	out := make([]ObjEvent, len(events))
	copy(out, from[:k])
	for i := k; i < len(events); i++ {
		decodeObjEvent(&out[i], events[i].Data)
	}
	return out
}

func decodeObjEvent(o *ObjEvent, data string) {
	if IsDone(data) {
		return
	}
	sc := scanOf(data)
	var v ObjEvent
	if sc.Open('{') {
		for k := range sc.Members() {
			switch k {
			case "type":
				v.Type = sc.Str()
			case "index":
				v.Index = int(sc.Int())
			case "output_index":
				v.OutputIndex = int(sc.Int())
			case "content_index":
				v.ContentIndex, v.HasContentIndex = int(sc.Int()), true
			case "item_id":
				v.ItemID = sc.Str()
			case "sequence_number":
				v.Seq, v.HasSeq = sc.Int(), true
			case "delta":
				off := sc.Mark()
				if !sc.Open('{') {
					v.Delta = sc.rawJSON()
					break
				}
				decodeObjDelta(&sc, &v)
				v.Delta = RawJSON(sc.Since(off))
			case "item":
				v.Item = sc.rawJSON()
			case "response":
				v.Response = sc.rawJSON()
			case "error":
				v.Err = sc.rawJSON()
			case "content_block":
				v.ContentBlock = sc.rawJSON()
			case "message":
				v.Message = sc.rawJSON()
			case "usage":
				v.Usage = sc.rawJSON()
			case "text":
				v.Text = sc.rawJSON()
			case "arguments":
				v.Arguments = sc.rawJSON()
			case "refusal":
				v.Refusal = sc.rawJSON()
			default:
				sc.Skip()
			}
		}
	} else {
		sc.Skip()
	}
	if !sc.End() {
		return
	}
	v.Valid = true
	*o = v
}

// decodeObjDelta reads the members of an object "delta".
func decodeObjDelta(sc *jscan, o *ObjEvent) {
	for k := range sc.Members() {
		switch k {
		case "type":
			o.DeltaType = sc.Str()
		case "text":
			o.DeltaText = sc.Str()
		case "thinking":
			o.DeltaThinking = sc.Str()
		case "partial_json":
			o.DeltaPartial = sc.Str()
		default:
			sc.Skip()
		}
	}
}
