package sse

import (
	"reflect"
	"strings"
	"testing"
)

// ev is the part of an Event the rule table checks.
type ev struct {
	T, D, ID string
	R        int
	unterm   bool
}

func evs(es []Event) []ev {
	out := make([]ev, 0, len(es))
	for _, e := range es {
		out = append(out, ev{T: e.Type, D: e.Data, ID: e.ID, R: e.Retry, unterm: !e.Terminated})
	}
	return out
}

func TestParserRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []ev
	}{
		{"lf", "data: a\n\ndata: b\n\n", []ev{{D: "a", R: -1}, {D: "b", R: -1}}},
		{"crlf", "data: a\r\n\r\ndata: b\r\n\r\n", []ev{{D: "a", R: -1}, {D: "b", R: -1}}},
		{"bare cr", "data: a\r\rdata: b\r\r", []ev{{D: "a", R: -1}, {D: "b", R: -1}}},
		{"mixed endings", "data: a\r\ndata: b\rdata: c\n\r\n", []ev{{D: "a\nb\nc", R: -1}}},
		{"lf cr is two endings", "data: a\n\r", []ev{{D: "a", R: -1}}},
		{"bom skipped once", "\xEF\xBB\xBFdata: a\n\n\xEF\xBB\xBFdata: b\n\n", []ev{{D: "a", R: -1}}},
		{"partial bom is content", "\xEF\xBBdata: a\n\n", nil},
		{"no space", "data:x\n\n", []ev{{D: "x", R: -1}}},
		{"one space stripped", "data: x\n\n", []ev{{D: "x", R: -1}}},
		{"only one space stripped", "data:  x\n\n", []ev{{D: " x", R: -1}}},
		{"tab kept", "data:\tx\n\n", []ev{{D: "\tx", R: -1}}},
		{"multi-line data", "data: a\ndata: b\ndata\n\n", []ev{{D: "a\nb\n", R: -1}}},
		{"data alone twice", "data\ndata\n\n", []ev{{D: "\n", R: -1}}},
		{"empty data dispatched", "data:\n\n", []ev{{D: "", R: -1}}},
		{"colon in value", "data: a: b\n\n", []ev{{D: "a: b", R: -1}}},
		{"event type", "event: add\ndata: 1\n\n", []ev{{T: "add", D: "1", R: -1}}},
		{"last event wins", "event: a\nevent: b\ndata: 1\n\n", []ev{{T: "b", D: "1", R: -1}}},
		{"type reset after dispatch", "event: a\ndata: 1\n\ndata: 2\n\n", []ev{{T: "a", D: "1", R: -1}, {D: "2", R: -1}}},
		{"no data not dispatched, type reset", "event: a\n\ndata: 1\n\n", []ev{{D: "1", R: -1}}},
		{"comment only not dispatched", ": ping\n\ndata: 1\n\n", []ev{{D: "1", R: -1}}},
		{"comment inside event", "data: a\n: note\ndata: b\n\n", []ev{{D: "a\nb", R: -1}}},
		{"id sticky", "id: 1\ndata: a\n\ndata: b\n\n", []ev{{ID: "1", D: "a", R: -1}, {ID: "1", D: "b", R: -1}}},
		{"id from skipped block persists", "id: 9\n\ndata: a\n\n", []ev{{ID: "9", D: "a", R: -1}}},
		{"empty id resets", "id: 1\ndata: a\n\nid\ndata: b\n\n", []ev{{ID: "1", D: "a", R: -1}, {D: "b", R: -1}}},
		{"id with nul ignored", "id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n", []ev{{ID: "1", D: "a", R: -1}, {ID: "1", D: "b", R: -1}}},
		{"retry digits", "retry: 1500\ndata: a\n\n", []ev{{D: "a", R: 1500}}},
		{"retry not sticky", "retry: 1500\ndata: a\n\ndata: b\n\n", []ev{{D: "a", R: 1500}, {D: "b", R: -1}}},
		{"retry non-digits ignored", "retry: 15a\ndata: a\n\nretry: -1\ndata: b\n\nretry:\ndata: c\n\nretry: +5\ndata: d\n\n",
			[]ev{{D: "a", R: -1}, {D: "b", R: -1}, {D: "c", R: -1}, {D: "d", R: -1}}},
		{"retry overflow clamps", "retry: 99999999999999999999999\ndata: a\n\n", []ev{{D: "a", R: int(^uint(0) >> 1)}}},
		{"unknown field ignored", "foo: bar\ndata: a\n\n", []ev{{D: "a", R: -1}}},
		{"names case-sensitive", "Data: a\nEVENT: x\ndata: b\n\n", []ev{{D: "b", R: -1}}},
		{"space before colon is name", "data : a\ndata: b\n\n", []ev{{D: "b", R: -1}}},
		{"extra blank lines", "\n\n\ndata: a\n\n\n\n", []ev{{D: "a", R: -1}}},
		{"unterminated final event", "data: a\n\ndata: b\n", []ev{{D: "a", R: -1}, {D: "b", R: -1, unterm: true}}},
		{"unterminated final line", "data: a\ndata: b", []ev{{D: "a\nb", R: -1, unterm: true}}},
		{"unterminated without data dropped", "data: a\n\nevent: x\n", []ev{{D: "a", R: -1}}},
		{"final cr dispatches at close", "data: a\r\r", []ev{{D: "a", R: -1}}},
		{"invalid utf8 kept raw", "data: \xff\xfe\n\n", []ev{{D: "\xff\xfe", R: -1}}},
		{"nul in data kept", "data: a\x00b\n\n", []ev{{D: "a\x00b", R: -1}}},
		{"empty stream", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := evs(parseString(tt.in))
			if len(got) == 0 && len(tt.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parse %q:\n got %+v\nwant %+v", tt.in, got, tt.want)
			}
			// The same rules hold byte by byte.
			got1 := evs(parseChunks(splitEvery([]byte(tt.in), 1)...))
			if !reflect.DeepEqual(got1, got) {
				t.Errorf("byte-by-byte %q:\n got %+v\nwant %+v", tt.in, got1, got)
			}
		})
	}
}

func TestParserSplitLineEndings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		chunks []string
		want   []ev
		end    []int64
	}{
		{"crlf split in blank line", []string{"data: a\r\n\r", "\ndata: b\n\n"}, []ev{{D: "a", R: -1}, {D: "b", R: -1}}, []int64{11, 20}},
		{"crlf split in field line", []string{"data: a\r", "\ndata: b\r\n\r\n"}, []ev{{D: "a\nb", R: -1}}, []int64{20}},
		{"cr then cr across feeds", []string{"data: a\r", "\r"}, []ev{{D: "a", R: -1}}, []int64{9}},
		{"cr at end of feed then data", []string{"data: a\r\r", "data: b\r\r"}, []ev{{D: "a", R: -1}, {D: "b", R: -1}}, []int64{9, 18}},
		{"bom split", []string{"\xEF", "\xBB", "\xBFdata: a\n\n"}, []ev{{D: "a", R: -1}}, []int64{12}},
		{"rune split", []string{"data: \xC2", "\xB0\n\n"}, []ev{{D: "°", R: -1}}, []int64{10}},
		{"empty feeds", []string{"", "data: a", "", "\n", "", "\n"}, []ev{{D: "a", R: -1}}, []int64{9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var chunks [][]byte
			for _, c := range tt.chunks {
				chunks = append(chunks, []byte(c))
			}
			es := parseChunks(chunks...)
			if got := evs(es); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v\nwant %+v", got, tt.want)
			}
			for i, e := range es {
				if e.End != tt.end[i] {
					t.Errorf("event %d: End = %d, want %d", i, e.End, tt.end[i])
				}
			}
		})
	}
}

func TestParserCRDispatchWaitsForNextByte(t *testing.T) {
	t.Parallel()
	var p Parser
	var got []Event
	emit := func(e Event) { got = append(got, e) }
	p.Feed([]byte("data: a\r\r"), emit)
	if len(got) != 0 {
		t.Fatalf("dispatched before knowing whether an LF follows: %+v", got)
	}
	p.Feed([]byte("\n"), emit)
	if len(got) != 1 || got[0].End != 10 || got[0].Quirks&QuirkCRLF == 0 || got[0].Quirks&QuirkCR == 0 {
		t.Fatalf("got %+v, want one event ending at 10 with cr and crlf quirks", got)
	}
	p.Feed([]byte("data: b\n\n"), emit)
	if len(got) != 2 || got[1].Data != "b" || got[1].Start != 10 {
		t.Fatalf("got %+v", got)
	}
}

func TestParserOffsets(t *testing.T) {
	t.Parallel()
	// Hand-checked layout:
	//   0..2   BOM
	//   3..7   ": hi\n"          first block starts at its comment, 3
	//   8..15  "data: a\n"
	//   16     "\n"              dispatches: End 17
	//   17..26 "event: t\r\n"    second block starts at 17
	//   27..35 "data: b\r\n"
	//   36..37 "\r\n"            End 38
	//   38, 39 "\n", "\n"        stray blank lines
	//   40..46 "data: c"         unterminated: Start 40, End 47 (stream length)
	in := "\xEF\xBB\xBF: hi\ndata: a\n\nevent: t\r\ndata: b\r\n\r\n\n\ndata: c"
	type span struct {
		start, end int64
		term       bool
	}
	want := []span{{3, 17, true}, {17, 38, true}, {40, 47, false}}
	var comments []int64
	var p Parser
	p.OnComment = func(text string, off int64) {
		if text != "hi" {
			t.Errorf("comment text = %q, want %q", text, "hi")
		}
		comments = append(comments, off)
	}
	var got []span
	emit := func(e Event) { got = append(got, span{e.Start, e.End, e.Terminated}) }
	p.Feed([]byte(in), emit)
	if p.Offset() != int64(len(in)) {
		t.Errorf("Offset = %d, want %d", p.Offset(), len(in))
	}
	p.Close(emit)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("spans = %v, want %v", got, want)
	}
	if !reflect.DeepEqual(comments, []int64{3}) {
		t.Errorf("comment offsets = %v, want [3]", comments)
	}
}

func TestOnComment(t *testing.T) {
	t.Parallel()
	in := ":a\n:  b\n:\ndata: x\n: c\r\n\n"
	type c struct {
		text string
		off  int64
	}
	var got []c
	var p Parser
	p.OnComment = func(text string, off int64) { got = append(got, c{text, off}) }
	var es []Event
	for _, b := range splitEvery([]byte(in), 1) {
		p.Feed(b, func(e Event) { es = append(es, e) })
	}
	p.Close(func(e Event) { es = append(es, e) })
	want := []c{{"a", 0}, {" b", 3}, {"", 8}, {"c", 18}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("comments = %+v, want %+v", got, want)
	}
	if len(es) != 1 || es[0].Start != 0 || es[0].Quirks&QuirkComment == 0 {
		t.Errorf("events = %+v, want one starting at 0 with the comment quirk", es)
	}
}

// TestOnField: every field the spec ignores is reported with its name,
// value and offset, in any split, and changes nothing of the events; the
// four the spec reads are not.
func TestOnField(t *testing.T) {
	t.Parallel()
	in := "data: a\nerror: failed to decode\n\nerror:x\n\nretry: 5\nid: 1\nevent: e\ndata: b\nmessage\n\n"
	type f struct {
		name, value string
		off         int64
	}
	for _, n := range []int{1, 3, len(in)} {
		var got []f
		var p Parser
		p.OnField = func(name, value string, off int64) { got = append(got, f{name, value, off}) }
		var es []Event
		for _, b := range splitEvery([]byte(in), n) {
			p.Feed(b, func(e Event) { es = append(es, e) })
		}
		p.Close(func(e Event) { es = append(es, e) })
		want := []f{{"error", "failed to decode", 8}, {"error", "x", 33}, {"message", "", 74}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("split %d: fields = %+v, want %+v", n, got, want)
		}
		if len(es) != 2 || es[0].Data != "a" || es[1].Data != "b" || es[1].Type != "e" {
			t.Errorf("split %d: events = %+v", n, es)
		}
	}
}

func TestQuirks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []Quirk // exact, per event
	}{
		{"plain", "data: a\n\n", []Quirk{0}},
		{"no space", "data:a\n\n", []Quirk{QuirkNoSpace}},
		{"extra space", "data:  a\n\n", []Quirk{QuirkExtraSpace}},
		{"no colon", "data\n\n", []Quirk{QuirkNoColon}},
		{"cr", "data: a\r\r", []Quirk{QuirkCR}},
		{"crlf", "data: a\r\n\r\n", []Quirk{QuirkCRLF}},
		{"mixed in block", "data: a\r\n\n", []Quirk{QuirkCRLF | QuirkMixedEndings}},
		{"mixed across stream", "data: a\n\ndata: b\r\n\r\ndata: c\n\n", []Quirk{0, QuirkCRLF | QuirkMixedEndings, 0}},
		{"bom", "\xEF\xBB\xBFdata: a\n\ndata: b\n\n", []Quirk{QuirkBOM, 0}},
		{"stray bom", "data: a\n\n\xEF\xBB\xBFdata: b\ndata: c\n\n", []Quirk{0, QuirkStrayBOM | QuirkUnknownField}},
		{"unknown field", "foo: 1\ndata: a\n\n", []Quirk{QuirkUnknownField}},
		{"comment", ": x\ndata: a\n\n", []Quirk{QuirkComment}},
		{"multi-line", "data: a\ndata: b\n\n", []Quirk{QuirkMultiLineData}},
		{"duplicate", "event: a\nevent: b\nid: 1\nid: 2\ndata: a\n\n", []Quirk{QuirkDuplicateField}},
		{"bad retry", "retry: x\ndata: a\n\n", []Quirk{QuirkBadRetry}},
		{"nul id", "id: \x00\ndata: a\n\n", []Quirk{QuirkNULInID}},
		{"invalid utf8", "data: \xff\n\n", []Quirk{QuirkInvalidUTF8}},
		{"skipped block", "event: x\n\n: ping\n\ndata: a\n\ndata: b\n\n", []Quirk{QuirkSkippedBlock, 0}},
		{"comment block not skipped", ": ping\n\ndata: a\n\n", []Quirk{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			es := parseString(tt.in)
			var got []Quirk
			for _, e := range es {
				got = append(got, e.Quirks)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("quirks = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestQuirkString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		q    Quirk
		want string
	}{
		{0, ""},
		{QuirkNoSpace, "no-space"},
		{QuirkCR | QuirkSkippedBlock, "cr|skipped-block"},
		{quirkEnd | QuirkBOM, "bom|0x20000"},
		{QuirkTooLong, "too-long"},
	}
	for _, tt := range tests {
		if got := tt.q.String(); got != tt.want {
			t.Errorf("Quirk(%#x).String() = %q, want %q", uint32(tt.q), got, tt.want)
		}
	}
}

func TestFeedAfterCloseIgnored(t *testing.T) {
	t.Parallel()
	var p Parser
	n := 0
	emit := func(Event) { n++ }
	p.Feed([]byte("data: a\n"), emit)
	p.Close(emit)
	p.Feed([]byte("\ndata: b\n\n"), emit)
	p.Close(emit)
	if n != 1 {
		t.Errorf("events = %d, want 1", n)
	}
}

func TestParserLongLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("y", 3<<20)
	in := []byte("data: " + long + "\n\ndata: z\n\n")
	es := parseChunks(splitEvery(in, 4096)...)
	if len(es) != 2 || es[0].Data != long || es[1].Data != "z" {
		t.Fatalf("got %d events", len(es))
	}
	if es[1].Start != int64(len(long)+8) {
		t.Errorf("second Start = %d, want %d", es[1].Start, len(long)+8)
	}
}
