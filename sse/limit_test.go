package sse

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// parseLimited is parseChunks with a cap of limit bytes.
func parseLimited(limit int, chunks ...[]byte) []Event {
	p := Parser{Limit: limit}
	var out []Event
	emit := func(e Event) { out = append(out, e) }
	for _, c := range chunks {
		p.Feed(c, emit)
	}
	p.Close(emit)
	return out
}

// TestLimit: a line or an event's data longer than the cap keeps its
// first bytes up to the cap and is marked too-long; the offsets still
// count every byte, the next events are whole, and nothing under the cap
// changes.
func TestLimit(t *testing.T) {
	t.Parallel()
	long := "data: " + strings.Repeat("x", 40) + "\n\n"
	stream := "event: a\ndata: short\n\n" + long +
		"data: " + strings.Repeat("y", 12) + "\ndata: " + strings.Repeat("z", 12) + "\n\n" +
		"event: " + strings.Repeat("e", 30) + "\ndata: 1\n\n" +
		": " + strings.Repeat("c", 30) + "\ndata: after\n\n"
	var comments []string
	for _, n := range []int{1, 3, 7, len(stream)} {
		p := Parser{Limit: 16, OnComment: func(text string, _ int64) { comments = append(comments, text) }}
		var got []Event
		for _, c := range splitEvery([]byte(stream), n) {
			p.Feed(c, func(e Event) { got = append(got, e) })
		}
		p.Close(func(e Event) { got = append(got, e) })
		want := []struct {
			typ, data string
			long      bool
		}{
			{"a", "short", false},
			{"", strings.Repeat("x", 10), true},                  // "data: " + 10 = 16
			{"", strings.Repeat("y", 10) + "\n" + "zzzzz", true}, // each line, then the data, capped at 16
			{strings.Repeat("e", 9), "1", true},                  // "event: " + 9 = 16
			{"", "after", true},                                  // its block's comment is long
		}
		if len(got) != len(want) {
			t.Fatalf("split %d: %d events, want %d: %+v", n, len(got), len(want), got)
		}
		for i, w := range want {
			g := got[i]
			if g.Type != w.typ || g.Data != w.data || (g.Quirks&QuirkTooLong != 0) != w.long {
				t.Errorf("split %d event %d: %q %q %v, want %q %q too-long %v", n, i, g.Type, g.Data, g.Quirks, w.typ, w.data, w.long)
			}
		}
		if got[1].Start != int64(len("event: a\ndata: short\n\n")) || got[1].End != got[1].Start+int64(len(long)) {
			t.Errorf("split %d: the long event spans %d..%d", n, got[1].Start, got[1].End)
		}
		if last := got[len(got)-1]; last.End != int64(len(stream)) {
			t.Errorf("split %d: the last event ends at %d, want %d", n, last.End, len(stream))
		}
	}
	for _, c := range comments {
		if len(c) > 16 {
			t.Fatalf("a comment of %d bytes passed the cap", len(c))
		}
	}
	// The default cap: an 8 MiB line is whole, one past MaxLine is cut.
	eight := "data: " + strings.Repeat("a", 8<<20) + "\n\n"
	if ev := parseString(eight); len(ev) != 1 || len(ev[0].Data) != 8<<20 || ev[0].Quirks&QuirkTooLong != 0 {
		t.Fatalf("8 MiB line: %d events, quirks %v", len(ev), ev[0].Quirks)
	}
}

// TestUnterminatedLineMemory: a line that never ends, fed in pieces as a
// decompressor emits them, holds at most the cap however long it runs.
func TestUnterminatedLineMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("measures memory: run without -race")
	}
	t.Parallel()
	var p Parser
	piece := bytes.Repeat([]byte("a"), 32<<10)
	p.Feed([]byte("data: "), func(Event) {})
	for range (MaxLine / len(piece)) * 4 { // 64 MiB
		p.Feed(piece, func(Event) {})
		if cap(p.line) > MaxLine {
			t.Fatalf("the line buffer holds %d bytes", cap(p.line))
		}
	}
	var got []Event
	p.Close(func(e Event) { got = append(got, e) })
	if len(got) != 1 || len(got[0].Data) != MaxLine-len("data: ") || got[0].Quirks&QuirkTooLong == 0 || got[0].End != 6+64<<20 {
		t.Fatalf("got %d events: %d bytes of data, quirks %v, end %d", len(got), len(got[0].Data), got[0].Quirks, got[0].End)
	}
	// Data lines that each fit but never end the event are bounded too.
	var q Parser
	line := []byte("data: " + strings.Repeat("b", 1<<20) + "\n")
	for range 40 {
		q.Feed(line, func(Event) {})
	}
	if len(q.data) > MaxLine+1 {
		t.Fatalf("the data buffer holds %d bytes", len(q.data))
	}
}

// FuzzLimit: with a small cap, parsing does not depend on the split, every
// event's fields stay within the cap, the offsets are those of the
// uncapped parse, and the events the cap does not touch are the same.
func FuzzLimit(f *testing.F) {
	for _, s := range splitInputs {
		f.Add([]byte(s), uint8(3), uint8(5))
	}
	f.Add([]byte("data: "+strings.Repeat("x", 40)+"\r\n\r\ndata:1\n\n"), uint8(9), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, limit, chunk uint8) {
		lim := int(limit%32) + 8 // a field line "retry" fits: the cap never cuts a known name
		want := parseLimited(lim, data)
		if got := parseLimited(lim, splitEvery(data, int(chunk%32)+1)...); !reflect.DeepEqual(got, want) {
			t.Fatalf("split by %d differs:\n got %+v\nwant %+v", chunk%32+1, got, want)
		}
		full := parseChunks(data)
		if len(full) != len(want) {
			t.Fatalf("the cap changes the number of events: %d vs %d", len(want), len(full))
		}
		for i, e := range want {
			if len(e.Data) > lim || len(e.Type) > lim || len(e.ID) > lim {
				t.Fatalf("event %d passes the cap of %d: %+v", i, lim, e)
			}
			f := full[i]
			if e.Start != f.Start || e.End != f.End || e.Terminated != f.Terminated {
				t.Fatalf("event %d spans %d..%d, uncapped %d..%d", i, e.Start, e.End, f.Start, f.End)
			}
			if e.Quirks&QuirkTooLong == 0 && (e.Data != f.Data || e.Type != f.Type || e.Quirks != f.Quirks) {
				t.Fatalf("event %d is not marked too-long but differs: %+v vs %+v", i, e, f)
			}
			// Each data line is cut on its own: the first is a prefix.
			first, _, _ := strings.Cut(e.Data, "\n")
			if ff, _, _ := strings.Cut(f.Data, "\n"); !strings.HasPrefix(ff, first) {
				t.Fatalf("event %d's capped data does not start as the uncapped: %q vs %q", i, e.Data, f.Data)
			}
		}
	})
}
