package protocol

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/seam-dev/seam/internal/streamtest"
	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// decodeCases are payloads probing the corners where a single-pass scanner
// could part from gjson's Valid + ForEach: invalid JSON, escapes in keys
// and values, surrogates, numbers gjson converts, unusual value types in
// the routed fields, duplicate keys and deep nesting.
var decodeCases = []string{
	``, ` `, `[DONE]`, ` [DONE] `, `{}`, `[]`, `5`, `"x"`, `null`, `true`, `{`, `}`, `{"a":}`,
	`{"a":1,}`, `{"a":1 "b":2}`, `[1,]`, `[,1]`, `{"a":[1,2}`, `{"a":{"b":[}]}}`, `{"a":1}x`,
	`{"a":1} `, "\t{\"a\":1}\r\n", `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`, `{"a":1e+5}`,
	`{"a":-0.5E-3}`, `{"a":tru}`, `{"a":nul}`, `{"a":"\x01"}`, `{"a":"\q"}`, `{"a":"\u12"}`,
	`{"a":"\u12g4"}`, `{"a":"\`, `{"a":"abc`, `{"\u0069d":"x","model":"m\u00e9"}`,
	`{"id":"a\"b\\c\/d\b\f\n\r\t"}`, `{"id":"\ud83d\ude00 \ud800 \udc00x \ud800\u0041 \ud800\n"}`,
	`{"id":5,"model":1.50,"error":{"message":"x"},"usage":null}`, `{"id":null,"model":true}`,
	`{"object":"error","message":"m","x_groq":{"error":"e","usage":{"prompt_tokens":1}}}`, `{"object":7,"x_groq":null}`,
	`{"choices":[{"delta":{"reasoning_details":[{"type":"reasoning.text","text":"t","signature":"s"}],"content":[{"type":"text","text":"x"}]}}]}`,
	`{"id":-12345678901234567890,"model":1e400}`,
	`{"choices":null}`, `{"choices":5}`, `{"choices":"s"}`, `{"choices":{"a":{"index":2},"b":3}}`,
	`{"choices":[{"index":"7","finish_reason":1.0,"delta":"str"},{"index":1.9},{"index":-3e2},[1],7]}`,
	`{"choices":[{"index":9007199254740993},{"index":99999999999999999999},{"index":"1.5e3"},{"index":true}]}`,
	`{"choices":[],"choices":[{"index":1}]}`,
	`{"choices":[{"delta":{"role":"assistant","content":"hi","reasoning_content":null,"reasoning":{"x":1},"refusal":3,"thinking":"t"}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{\"a\":1}"}},{"function":[1]},{"function":"x"},5,[]]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":0}],"tool_calls":{"a":1}}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":0}]},"delta":{"tool_calls":[{"index":1},{"index":2}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":0}]},"delta":{"content":"x"}},{"delta":{"tool_calls":[{"id":"z"}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":0}]}}],"choices":[{"delta":{"tool_calls":[{"index":1}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":0}]}}],"x":[}`,
	`{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"a\u00e9","partial_json":"{}","thinking":5}}`,
	`{"type":"response.output_text.delta","item_id":"i","output_index":2,"content_index":0,"sequence_number":12,"delta":"x\ny"}`,
	`{"type":"t","delta":null,"item":{"a":[1,{"b":2}]},"response":[1],"error":"e","content_block":true,"message":false,"usage":1.5,"text":"t","arguments":"{}","refusal":null}`,
	`{"delta":7,"sequence_number":"3"}`, `{"delta":[1,2]}`, `["type","x"]`,
	`{"a":` + strings.Repeat(`[`, 100) + strings.Repeat(`]`, 100) + `}`,
	`{"a":` + strings.Repeat(`[`, 100) + strings.Repeat(`]`, 99) + `}`,
	`{"a":` + strings.Repeat(`{"b":`, 50) + `1` + strings.Repeat(`}`, 50) + `}`,
}

func decodeSeeds(t testing.TB) []string {
	t.Helper()
	seeds := append([]string(nil), decodeCases...)
	files, err := filepath.Glob(filepath.Join(streamtest.Realworld, "*.sse"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no recorded streams in %s", streamtest.Realworld)
	}
	for _, f := range files {
		for _, e := range ParseSide(chunksOf(tape.Upstream, readTestdata(t, filepath.Base(f)), 0), nil).Events {
			seeds = append(seeds, e.Data)
		}
	}
	return seeds
}

// checkDecode compares the single-pass decoders with the gjson reference on
// one payload, decoded after a previous payload so arena offsets are
// exercised.
func checkDecode(t *testing.T, data string) {
	t.Helper()
	const prev = `{"choices":[{"delta":{"tool_calls":[{"index":0}]}}]}`
	got, want := &ChatSide{chunks: make([]ChatChunk, 2)}, &ChatSide{chunks: make([]ChatChunk, 2)}
	for i, d := range []string{prev, data} {
		got.decodeChunk(&got.chunks[i], d)
		want.refDecodeChunk(&want.chunks[i], d)
	}
	if len(got.deltas) == 0 && len(want.deltas) == 0 {
		got.deltas, want.deltas = nil, nil
	}
	if len(got.tools) == 0 && len(want.tools) == 0 {
		got.tools, want.tools = nil, nil
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chat decode of %q:\n got %+v\nwant %+v", data, got, want)
	}
	var og ObjEvent
	var ow refObjEvent
	decodeObjEvent(&og, data)
	refDecodeObjEvent(&ow, data)
	raws := []struct {
		name string
		got  RawJSON
		want gjson.Result
	}{
		{"delta", og.Delta, ow.delta}, {"item", og.Item, ow.item}, {"response", og.Response, ow.response},
		{"error", og.Err, ow.errv}, {"content_block", og.ContentBlock, ow.contentBlock},
		{"message", og.Message, ow.message}, {"usage", og.Usage, ow.usage}, {"text", og.Text, ow.text},
		{"arguments", og.Arguments, ow.arguments}, {"refusal", og.Refusal, ow.refusal},
	}
	for _, r := range raws {
		g, w := r.got.Result(), r.want
		w.Index = 0
		if !reflect.DeepEqual(g, w) || r.got.String() != w.String() || r.got.Exists() != w.Exists() || r.got.IsObject() != w.IsObject() {
			t.Errorf("object decode of %q: %s = %+v, want %+v", data, r.name, g, w)
		}
	}
	og.Delta, og.Item, og.Response, og.Err, og.ContentBlock = "", "", "", "", ""
	og.Message, og.Usage, og.Text, og.Arguments, og.Refusal = "", "", "", "", ""
	if !reflect.DeepEqual(og, ow.ObjEvent) {
		t.Errorf("object decode of %q:\n got %+v\nwant %+v", data, og, ow.ObjEvent)
	}
	if got.chunks[1].Valid != (!IsDone(data) && gjson.Valid(data)) {
		t.Errorf("valid(%q) = %v, gjson.Valid says otherwise", data, got.chunks[1].Valid)
	}
}

func TestDecodeMatchesGJSON(t *testing.T) {
	t.Parallel()
	for _, data := range decodeSeeds(t) {
		checkDecode(t, data)
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range decodeSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		checkDecode(t, data)
	})
}
