package shape

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
)

// maxFuzzBody bounds the bodies the engine fuzz target runs: large inputs
// add nothing the seeds' shapes do not already cover and cost the fuzzer
// most of its speed (a mutated 50 KiB body split into 1-byte reads).
const maxFuzzBody = 16 << 10

// FuzzEngine: no input, however split, makes an engine panic; every
// profile's output is deterministic and independent of how the upstream
// was split into reads; passthrough returns its input unchanged, read for
// read; and the text transforms that only regroup text (tool-block with
// holdback, holdback alone) give every choice the upstream's text and tool
// calls. (tool-block with holdback off is the incident: it repeats text.)
// The selector picks a profile (obsidian-xml, responses, passthrough) and a
// switch set; the responses profile covers the adapter on Chat Completions
// and the sniff-then-raw path on Responses upstreams.
func FuzzEngine(f *testing.F) {
	m, _ := filepath.Glob(realworld + "/*.sse")
	for _, p := range m {
		b := readFile(f, p)
		if len(b) > maxFuzzBody {
			b = b[:maxFuzzBody]
		}
		f.Add(b, uint8(7), uint8(0))
		f.Add(b, uint8(5), uint8(4))  // responses profile, no switches set
		f.Add(b, uint8(3), uint8(12)) // regrouping text
	}
	f.Add([]byte("data: {\"choices\":[{\"index\":99999,\"delta\":{\"content\":\"<use_tool\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"></use_tool>\"}}]}\n\n"), uint8(3), uint8(1))
	f.Add([]byte("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":-1}\n\n"), uint8(1), uint8(2))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":-5,\"function\":{\"arguments\":\"[\"}}]}}]}\n\ndata: [DONE]\n\n"), uint8(2), uint8(3))
	f.Add([]byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a <use_t\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ool><name>x</name></use_tool\"}}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"> tail\"}}]}\n\ndata: [DONE]\n\n"), uint8(0), uint8(13))
	sets := []map[string]string{
		nil,
		{SwHoldback: "off", SwOverlapDedupe: "on", SwStopAfterTools: "1"},
		{SwResponsesAdapter: "on", SwSuppressTail: "off", SwVoidArgsTag: "on"},
		{SwIncrementalArgs: "off", SwXMLTools: "off"},
	}
	// Selectors 0-3 are obsidian-xml, 4-7 responses, 8-11 passthrough;
	// 12 and 13 regroup text only (passthrough with tool-block and
	// holdback, or holdback alone).
	profiles := []string{ProfileObsidianXML, ProfileResponses, ProfilePassthrough}
	regroup := []map[string]string{
		{SwToolBlock: "on", SwHoldback: "on"},
		{SwHoldback: "on"},
	}
	f.Fuzz(func(t *testing.T, body []byte, chunk, sel uint8) {
		if len(body) > maxFuzzBody {
			t.Skip()
		}
		profile, set, regrouping := ProfilePassthrough, map[string]string(nil), false
		if n := int(sel) % 14; n >= 12 {
			set, regrouping = regroup[n-12], true
		} else {
			profile, set = profiles[n/len(sets)], sets[n%len(sets)]
		}
		reads := splitEvery(body, 1+int(chunk))
		split := run(mustEngine(t, profile, set), reads)
		a := join(split)
		b := join(run(mustEngine(t, profile, set), [][]byte{body}))
		if !bytes.Equal(a, b) {
			t.Fatalf("%s %v: output depends on how the upstream was read", profile, set)
		}
		switch {
		case profile == ProfilePassthrough && set == nil:
			if !reflect.DeepEqual(split, reads) {
				t.Fatalf("passthrough changed its input or its read boundaries")
			}
		case regrouping:
			up, cl := assemble(t, body), assemble(t, a)
			if fmt.Sprint(up) != fmt.Sprint(cl) {
				t.Fatalf("%v changed what a client assembles:\nupstream %+v\nclient   %+v", set, up, cl)
			}
		}
	})
}
