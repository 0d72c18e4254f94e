package shape

import (
	"path/filepath"
	"testing"
)

// FuzzEngine: no input, however split, makes an engine panic, and every
// profile's output is deterministic. The selector picks a profile
// (obsidian-xml, responses, passthrough) and a switch set; the responses
// profile covers the adapter on Chat Completions and the sniff-then-raw path
// on Responses upstreams.
func FuzzEngine(f *testing.F) {
	m, _ := filepath.Glob(realworld + "/*.sse")
	for _, p := range m {
		b := readFile(f, p)
		f.Add(b, uint8(7), uint8(0))
		f.Add(b, uint8(5), uint8(4)) // responses profile, no switches set
	}
	f.Add([]byte("data: {\"choices\":[{\"index\":99999,\"delta\":{\"content\":\"<use_tool\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"></use_tool>\"}}]}\n\n"), uint8(3), uint8(1))
	f.Add([]byte("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":-1}\n\n"), uint8(1), uint8(2))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":-5,\"function\":{\"arguments\":\"[\"}}]}}]}\n\ndata: [DONE]\n\n"), uint8(2), uint8(3))
	sets := []map[string]string{
		nil,
		{SwHoldback: "off", SwOverlapDedupe: "on", SwStopAfterTools: "1"},
		{SwResponsesAdapter: "on", SwSuppressTail: "off", SwVoidArgsTag: "on"},
		{SwIncrementalArgs: "off", SwXMLTools: "off"},
	}
	// Selectors 0-3 are obsidian-xml, 4-7 responses, 8-11 passthrough.
	profiles := []string{ProfileObsidianXML, ProfileResponses, ProfilePassthrough}
	f.Fuzz(func(t *testing.T, body []byte, chunk, sel uint8) {
		set := sets[int(sel)%len(sets)]
		profile := profiles[int(sel)/len(sets)%len(profiles)]
		e1 := mustEngine(t, profile, set)
		e2 := mustEngine(t, profile, set)
		a := join(run(e1, splitEvery(body, 1+int(chunk))))
		b := join(run(e2, [][]byte{body}))
		if string(a) != string(b) {
			t.Errorf("output depends on chunking")
		}
	})
}
