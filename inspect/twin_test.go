package inspect

import (
	"reflect"
	"testing"

	"github.com/seam-dev/seam/tape"
)

// TestTwinSidesShareDecoding checks that a client side carrying the same
// events as the upstream side reuses the upstream's decoded payloads and
// assembles exactly as when decoded on its own, and that a side whose data
// differs is decoded on its own.
func TestTwinSidesShareDecoding(t *testing.T) {
	t.Parallel()
	streams := []struct{ file, url string }{
		{"openai-chat-parallel-tool-calls.sse", "/v1/chat/completions"},
		{"openai-chat-n3-choices.sse", "/v1/chat/completions"},
		{"pydantic-ai-openai-responses-stream.2.sse", "/v1/responses"},
		{"anthropic-sdk-tool-use-response.sse", "/v1/messages"},
	}
	h := tape.Headers{"content-type": {"text/event-stream"}}
	for _, s := range streams {
		t.Run(s.file, func(t *testing.T) {
			t.Parallel()
			body := readTestdata(t, s.file)
			side := func(sd tape.Side, b []byte) *tape.SideData {
				return &tape.SideData{Response: &tape.Response{Side: sd, Status: 200, Headers: h}, Chunks: chunksOf(sd, b, 700)}
			}
			up := inspectSide(tape.Upstream, side(tape.Upstream, body), s.url, Options{}, 0, nil)
			shared := inspectSide(tape.Client, side(tape.Client, body), s.url, Options{}, 0, up.ev)
			alone := inspectSide(tape.Client, side(tape.Client, body), s.url, Options{}, 0, nil)
			decoded := up.ev.chat != nil || len(up.ev.obj) > 0
			same := shared.ev.chat == up.ev.chat && (len(up.ev.obj) == 0 || len(shared.ev.obj) > 0 && &shared.ev.obj[0] == &up.ev.obj[0])
			if !decoded || !same {
				t.Fatal("identical sides did not share the decoded payloads")
			}
			if !reflect.DeepEqual(shared.asm, alone.asm) {
				t.Fatalf("shared decoding assembles differently:\n got %+v\nwant %+v", shared.asm, alone.asm)
			}
			if !reflect.DeepEqual(emulateClients(shared), emulateClients(alone)) {
				t.Fatal("shared decoding emulates clients differently")
			}
			// One byte changed in the last event's data: no sharing.
			other := append([]byte(nil), body...)
			i := len(other) - 4
			for other[i] == '\n' || other[i] == '\r' {
				i--
			}
			other[i] ^= 1
			diff := inspectSide(tape.Client, side(tape.Client, other), s.url, Options{}, 0, up.ev)
			// Events parsed with the twin's body prefix are those parsed alone,
			// for a side equal to the twin, one differing at the end, and one
			// differing from the start.
			first := append([]byte{'\n'}, body...)
			for _, b := range [][]byte{body, other, first} {
				chunks := chunksOf(tape.Client, b, 700)
				for i := range chunks {
					chunks[i].T += int64(7 * i)
				}
				if got, want := parseSideTwin(chunks, up.ev), parseSide(chunks); !reflect.DeepEqual(got.Events, want.Events) || !reflect.DeepEqual(got.Comments, want.Comments) {
					t.Fatalf("parse with the twin's body differs:\n got %+v\nwant %+v", got.Events, want.Events)
				}
			}
			if (diff.ev.chat != nil && diff.ev.chat == up.ev.chat) || (len(diff.ev.obj) > 0 && &diff.ev.obj[0] == &up.ev.obj[0]) {
				t.Fatal("sides with different data shared the decoded payloads")
			}
		})
	}
}

// TestDecodePrefixReuse checks that decoding a side with its first k
// events' records copied from another side gives the same records as
// decoding it whole, for every k, with invalid and [DONE] events and tool
// calls inside the shared prefix.
func TestDecodePrefixReuse(t *testing.T) {
	t.Parallel()
	var events []Event
	for _, f := range []string{"openai-chat-parallel-tool-calls.sse", "openai-chat-n3-choices.sse"} {
		events = append(events, parseSide(chunksOf(tape.Upstream, readTestdata(t, f), 0)).Events...)
		events = append(events, Event{Data: "not json"}, Event{Data: `{"choices":[{"delta":{"tool_calls":[{"index":0}]}}],"x":[}`})
	}
	// The other side shares each prefix, then differs in every event.
	other := make([]Event, len(events))
	for i, e := range events {
		other[i] = Event{Data: e.Data + " "}
	}
	whole := decodeChat(events, nil, 0)
	for k := 0; k <= len(events); k++ {
		from := decodeChat(append(append([]Event(nil), events[:k]...), other[k:]...), nil, 0)
		got := decodeChat(events, from, k)
		if !reflect.DeepEqual(flatten(got, len(events)), flatten(whole, len(events))) {
			t.Fatalf("prefix of %d events: records differ from a whole decode", k)
		}
		objs := decodeObj(events, decodeObj(append(append([]Event(nil), events[:k]...), other[k:]...), nil, 0), k)
		if !reflect.DeepEqual(objs, decodeObj(events, nil, 0)) {
			t.Fatalf("prefix of %d events: object records differ from a whole decode", k)
		}
	}
}

type flatChunk struct {
	c      chatChunk
	deltas []flatDelta
}

type flatDelta struct {
	d     chatDelta
	tools []chatToolDelta
}

// flatten returns the records of a side's n events as its readers see
// them, through chunk, choiceDeltas and toolDeltas.
func flatten(cs *chatSide, n int) []flatChunk {
	out := make([]flatChunk, n)
	for i := range out {
		c := cs.chunk(i)
		out[i].c = *c
		for _, d := range cs.choiceDeltas(c) {
			out[i].deltas = append(out[i].deltas, flatDelta{d: d, tools: cs.toolDeltas(&d)})
		}
	}
	return out
}
