package streamtest

import (
	"encoding/json"
	"strings"
)

// Anthropic is an Anthropic Messages stream of the given event payloads
// in order, each named by its type (event: line) unless named is false.
func Anthropic(named bool, datas ...string) string {
	var b strings.Builder
	for _, d := range datas {
		if named {
			var typ struct{ Type string }
			_ = json.Unmarshal([]byte(d), &typ)
			b.WriteString("event: " + typ.Type + "\n")
		}
		b.WriteString("data: " + d + "\n\n")
	}
	return b.String()
}

// The events of an Anthropic stream answering "Hi" in one text block.
const (
	AntStart     = `{"type":"message_start","message":{"id":"msg_1","model":"claude","usage":{"input_tokens":1,"output_tokens":1}}}`
	AntTextStart = `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`
	AntTextDelta = `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`
	AntStop0     = `{"type":"content_block_stop","index":0}`
	AntMsgDelta  = `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}`
	AntMsgStop   = `{"type":"message_stop"}`
)
