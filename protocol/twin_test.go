package protocol

import (
	"reflect"
	"testing"

	"github.com/seam-dev/seam/framing"
	"github.com/seam-dev/seam/tape"
)

// TestTwinSidesShareDecoding checks that a client side carrying the same
// events as the upstream side reuses the upstream's decoded payloads and
// assembles exactly as when decoded on its own, and that a side whose data
// differs is decoded on its own.
func TestTwinSidesShareDecoding(t *testing.T) {
	t.Parallel()
	for _, file := range []string{
		"openai-chat-parallel-tool-calls.sse",
		"openai-chat-n3-choices.sse",
		"pydantic-ai-openai-responses-stream.2.sse",
		"anthropic-sdk-tool-use-response.sse",
	} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			body := readTestdata(t, file)
			parse := func(side tape.Side, b []byte, twin *Side) (*Side, *Assembly) {
				s := ParseSide(chunksOf(side, b, 700), twin)
				return s, Assemble(Detect("", s.Events), s)
			}
			upSide, _ := parse(tape.Upstream, body, nil)
			shared, sharedAsm := parse(tape.Client, body, upSide)
			_, aloneAsm := parse(tape.Client, body, nil)
			decoded := upSide.chat != nil || len(upSide.obj) > 0
			same := shared.chat == upSide.chat && (len(upSide.obj) == 0 || len(shared.obj) > 0 && &shared.obj[0] == &upSide.obj[0])
			if !decoded || !same {
				t.Fatal("identical sides did not share the decoded payloads")
			}
			if !reflect.DeepEqual(sharedAsm, aloneAsm) {
				t.Fatalf("shared decoding assembles differently:\n got %+v\nwant %+v", sharedAsm, aloneAsm)
			}
			// One byte changed in the last event's data: no sharing.
			other := append([]byte(nil), body...)
			i := len(other) - 4
			for other[i] == '\n' || other[i] == '\r' {
				i--
			}
			other[i] ^= 1
			diff, _ := parse(tape.Client, other, upSide)
			if (diff.chat != nil && diff.chat == upSide.chat) || (len(diff.obj) > 0 && &diff.obj[0] == &upSide.obj[0]) {
				t.Fatal("sides with different data shared the decoded payloads")
			}
			// Events parsed with the twin's body prefix are those parsed alone,
			// for a side equal to the twin, one differing at the end, and one
			// differing from the start.
			first := append([]byte{'\n'}, body...)
			for _, b := range [][]byte{body, other, first} {
				chunks := chunksOf(tape.Client, b, 700)
				for i := range chunks {
					chunks[i].T += int64(7 * i)
				}
				if got, want := ParseSide(chunks, upSide), ParseSide(chunks, nil); !reflect.DeepEqual(got.Events, want.Events) || !reflect.DeepEqual(got.Comments, want.Comments) {
					t.Fatalf("parse with the twin's body differs:\n got %+v\nwant %+v", got.Events, want.Events)
				}
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
		events = append(events, ParseSide(chunksOf(tape.Upstream, readTestdata(t, f), 0), nil).Events...)
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
	c      ChatChunk
	deltas []flatDelta
}

type flatDelta struct {
	d     ChatDelta
	tools []ChatToolDelta
}

// flatten returns the records of a side's n events as its readers see
// them, through chunk, choiceDeltas and toolDeltas.
func flatten(cs *ChatSide, n int) []flatChunk {
	out := make([]flatChunk, n)
	for i := range out {
		c := cs.Chunk(i)
		out[i].c = *c
		for _, d := range cs.ChoiceDeltas(c) {
			out[i].deltas = append(out[i].deltas, flatDelta{d: d, tools: cs.ToolDeltas(&d)})
		}
	}
	return out
}

// TestMirrors: a side of the twin's bytes cut at the twin's places mirrors
// it (its events the twin's, timed by its own chunks); a side cut
// elsewhere, with other bytes, or whose twin was read as another framing
// (NDJSON under its own Content-Type) does not, and is parsed on its own.
func TestMirrors(t *testing.T) {
	body := readTestdata(t, "openai-chat-parallel-tool-calls.sse")
	up := ParseSide(chunksOf(tape.Upstream, body, 700), nil)
	later := chunksOf(tape.Client, body, 700)
	for i := range later {
		later[i].T += 5e5
	}
	cl := ParseSide(later, up)
	if !cl.Mirrors(up) || up.Mirrors(cl) || cl.Mirrors(nil) {
		t.Fatal("the same bytes cut at the same places: want the client to mirror the upstream, not the other way")
	}
	alone := ParseSide(later, nil)
	if !reflect.DeepEqual(cl.Events, alone.Events) {
		t.Fatal("a mirroring side's events differ from those parsed on their own")
	}
	if other := ParseSide(chunksOf(tape.Client, body, 500), up); other.Mirrors(up) {
		t.Error("cut at other places, yet mirrors")
	}
	edited := append([]byte(nil), body...)
	edited[len(edited)-20] ^= 1
	if other := ParseSide(chunksOf(tape.Client, edited, 700), up); other.Mirrors(up) {
		t.Error("other bytes, yet mirrors")
	}
	lines := []byte("{\"a\":1}\n{\"b\":2}\n")
	nd := Parse(chunksOf(tape.Upstream, lines, 0), framing.NDJSON, nil)
	sse := ParseSide(chunksOf(tape.Client, lines, 0), nd)
	if sse.Mirrors(nd) || !reflect.DeepEqual(sse.Events, ParseSide(chunksOf(tape.Client, lines, 0), nil).Events) {
		t.Errorf("a twin read as NDJSON lends its events to a side read as SSE: %+v", sse.Events)
	}
}
