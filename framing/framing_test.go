package framing

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// providers is the repository's copy of the recorded provider streams (see
// fixtures/README.md).
const providers = "../fixtures/providers"

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(providers, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkInvariants checks what every parser promises whatever the body: the
// frames are in order, inside the body, their data lies in their bytes
// (for the text framings, it is the body's bytes from Start), and feeding
// the body in other splits yields the same frames, data and problems.
func checkInvariants(t *testing.T, kind Kind, body []byte) parsed {
	t.Helper()
	whole := parseAll(kind, body, 0)
	var last int64
	for i, f := range whole.frames {
		if f.Start < last || f.End < f.Start || f.End > int64(len(body)) {
			t.Fatalf("frame %d at %d–%d after %d in a %d-byte body", i, f.Start, f.End, last, len(body))
		}
		last = f.End
		d := whole.data[i]
		if !bytes.Contains(body[f.Start:f.End], d) {
			t.Fatalf("frame %d data %q is not within its bytes %q", i, d, body[f.Start:f.End])
		}
		if f.DataOff < f.Start || !bytes.HasPrefix(body[f.DataOff:], d) {
			t.Fatalf("frame %d data %q does not start at its DataOff %d", i, d, f.DataOff)
		}
	}
	for _, n := range []int{1, 2, 3, 7, 64} {
		got := parseAll(kind, body, n)
		if !reflect.DeepEqual(got, whole) {
			t.Fatalf("split into %d-byte reads:\n got %+v\nwant %+v", n, got, whole)
		}
	}
	return whole
}

func TestNDJSON(t *testing.T) {
	t.Parallel()
	body := []byte("{\"a\":1}\n\n  \r\n{\"b\":2}\r\nnot json\n{\"c\":")
	got := checkInvariants(t, NDJSON, body)
	want := []string{`{"a":1}`, `{"b":2}`, `not json`, `{"c":`}
	if len(got.data) != len(want) {
		t.Fatalf("data %q, want %q", got.data, want)
	}
	for i, w := range want {
		if string(got.data[i]) != w {
			t.Errorf("line %d = %q, want %q", i, got.data[i], w)
		}
	}
	if last := got.frames[len(got.frames)-1]; last.Terminated || !got.frames[0].Terminated {
		t.Errorf("terminated flags %+v", got.frames)
	}
	if len(got.problems) != 0 {
		t.Errorf("problems %+v: NDJSON lines are judged by the protocol", got.problems)
	}
}

// TestOllamaChunkedBodyIsNDJSON: the recorded Ollama bodies parse into one
// frame per line, ending with the done line.
func TestOllamaNDJSONFixtures(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"ollama-langchaingo-chat-stream.ndjson", "ollama-langchaingo-generate-stream.ndjson", "ollama-openinference-chat-stream-thinking.ndjson", "ollama-openllmetry-chat-stream-llama3.ndjson"} {
		body := readFixture(t, "ollama/"+name)
		got := checkInvariants(t, NDJSON, body)
		lines := bytes.Count(bytes.TrimSpace(body), []byte("\n")) + 1
		if len(got.frames) != lines || !bytes.Contains(got.data[len(got.data)-1], []byte(`"done":true`)) {
			t.Errorf("%s: %d frames for %d lines, last %q", name, len(got.frames), lines, got.data[len(got.data)-1])
		}
	}
}

func TestJSONArray(t *testing.T) {
	t.Parallel()
	body := readFixture(t, "gemini/gemini-langchaingo-json-array-stream.body.json")
	got := checkInvariants(t, JSONArray, body)
	if len(got.problems) != 0 || len(got.frames) < 10 {
		t.Fatalf("%d frames, problems %+v", len(got.frames), got.problems)
	}
	for i, d := range got.data {
		if d[0] != '{' || d[len(d)-1] != '}' || !got.frames[i].Terminated {
			t.Fatalf("element %d is not a whole object: %q", i, d)
		}
	}
	cases := []struct {
		body     string
		elems    []string
		problems string // kinds, in order
	}{
		{`[]`, nil, ""},
		{` [ {"a":"]}\"}"} , [1,[2]] ,"s\"x", 5,true ] `, []string{`{"a":"]}\"}"}`, `[1,[2]]`, `"s\"x"`, `5`, `true`}, ""},
		{`[{"a":1},{"b":`, []string{`{"a":1}`, `{"b":`}, "cut"},
		{`[{"a":1},`, []string{`{"a":1}`}, "cut"},
		{`[{"a":1}] x`, []string{`{"a":1}`}, "corrupt"},
		{`{"a":1}`, nil, "corrupt"},
		{`[{"a":1} {"b":2}]`, []string{`{"a":1}`, `{"b":2}`}, "corrupt"},
		{`[,{"a":1}]`, []string{`{"a":1}`}, "corrupt"},
	}
	for _, c := range cases {
		got := checkInvariants(t, JSONArray, []byte(c.body))
		var elems, kinds []string
		for _, d := range got.data {
			elems = append(elems, string(d))
		}
		for _, p := range got.problems {
			kinds = append(kinds, p.Kind.String())
		}
		if !reflect.DeepEqual(elems, c.elems) || strings.Join(kinds, ",") != c.problems {
			t.Errorf("%s: elements %q problems %q, want %q %q", c.body, elems, kinds, c.elems, c.problems)
		}
	}
}

// TestEventStreamRecorded: every recorded Bedrock body is read as whole
// messages with no problem; cutting one short or flipping a byte gives a
// cut or corrupt problem, and the parser resumes at the next message.
func TestEventStreamRecorded(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join(providers, "bedrock", "*.eventstream"))
	if len(files) != 6 {
		t.Fatalf("%d recorded event streams, want 6", len(files))
	}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got := checkInvariants(t, EventStream, body)
		if len(got.problems) != 0 || len(got.frames) == 0 || got.frames[len(got.frames)-1].End != int64(len(body)) {
			t.Fatalf("%s: %d frames, problems %+v", f, len(got.frames), got.problems)
		}
		for i, fr := range got.frames {
			if fr.MessageType != "event" || fr.Name == "" || got.headers[i].Get(":content-type").String() != "application/json" {
				t.Fatalf("%s: frame %+v headers %v", f, fr, got.headers[i])
			}
		}
		cut := checkInvariants(t, EventStream, body[:len(body)-3])
		if len(cut.frames) != len(got.frames)-1 || len(cut.problems) != 1 || cut.problems[0].Kind != Cut {
			t.Errorf("%s cut: %d frames, problems %+v", f, len(cut.frames), cut.problems)
		}
		if len(got.frames) < 2 {
			continue
		}
		bad := append([]byte(nil), body...)
		second := got.frames[1]
		bad[second.End-6] ^= 0x20 // a payload byte of the second message
		flip := checkInvariants(t, EventStream, bad)
		if len(flip.frames) != len(got.frames)-1 || len(flip.problems) != 1 || flip.problems[0].Off != second.Start || !strings.Contains(flip.problems[0].Msg, "CRC") {
			t.Errorf("%s flipped: %d frames, problems %+v", f, len(flip.frames), flip.problems)
		}
		bad = append([]byte(nil), body...)
		bad[second.Start+1] ^= 0x01 // its length
		flip = checkInvariants(t, EventStream, bad)
		if len(flip.frames) != len(got.frames)-1 || len(flip.problems) != 1 || flip.problems[0].Off != second.Start || flip.problems[0].Len != second.End-second.Start {
			t.Errorf("%s bad prelude: %d frames, problems %+v", f, len(flip.frames), flip.problems)
		}
	}
}

func TestChoose(t *testing.T) {
	t.Parallel()
	es := readFixture(t, "bedrock/bedrock-converse-stream-titan-guardrail.eventstream")
	for _, c := range []struct {
		ct       string
		head     string
		want     Kind
		mismatch bool
	}{
		{"text/event-stream", "data: {}\n\n", SSE, false},
		{"text/event-stream; charset=utf-8", string(es[:40]), EventStream, true},
		{"application/vnd.amazon.eventstream", string(es[:40]), EventStream, false},
		{"application/vnd.amazon.eventstream", "data: x\n\n", SSE, true},
		{"application/x-ndjson", `{"done":false}`, NDJSON, false},
		{"application/json; charset=UTF-8", "[{\n", JSONArray, false},
		{"application/json", `{"a":1}`, NDJSON, false},
		{"text/event-stream", `{"a":1}`, NDJSON, true},
		{"", "\r\n[", JSONArray, false},
		{"", "event: x\n", SSE, false},
		{"text/event-stream", "", SSE, false},
		{"", "", Unknown, false},
	} {
		k, mm := Choose(c.ct, []byte(c.head))
		if k != c.want || mm != c.mismatch {
			t.Errorf("Choose(%q, %.12q) = %s %v, want %s %v", c.ct, c.head, k, mm, c.want, c.mismatch)
		}
	}
}
