package protocol

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/seam-dev/seam/framing"
	"github.com/tidwall/gjson"
)

// toyState is the state of a toy family the driver tests run: what reached
// its handlers and which of its own detectors the driver called for.
type toyState struct {
	a       *Assembly
	each    []string // "i:type" per event handed to each
	on      []string // "i:type" per event handed to a typed handler
	own     []string // "k@i"
	settled bool
	n       int // finish's n, -1 before finish
}

var toyHandlers = handlers[toyState, gjson.Result]{
	decode: func(_ *toyState, _ int, e *Event) (*gjson.Result, bool) {
		if !gjson.Valid(e.Data) {
			return nil, false
		}
		r := gjson.Parse(e.Data)
		return &r, true
	},
	typeOf: func(r *gjson.Result, _ *Event) string { return r.Get("type").String() },
	each: func(s *toyState, i int, _ *Event, r *gjson.Result) {
		s.each = append(s.each, fmt.Sprintf("%d:%s", i, r.Get("type")))
	},
	on: map[string]func(*toyState, int, *Event, *gjson.Result){
		"delta": func(s *toyState, i int, _ *Event, _ *gjson.Result) { s.on = append(s.on, fmt.Sprintf("%d:delta", i)) },
		"end":   func(s *toyState, i int, _ *Event, _ *gjson.Result) { s.on = append(s.on, fmt.Sprintf("%d:end", i)) },
	},
	own:     func(s *toyState, k own, i int, _ *Event, _ string) { s.own = append(s.own, fmt.Sprintf("%d@%d", k, i)) },
	matters: func(r *gjson.Result) bool { return !r.Get("quiet").Bool() },
	settled: func(s *toyState) bool { return s.settled },
	finish:  func(s *toyState, n int) { s.n = n },
}

// toyEvents builds events from "name|data" strings ("data" alone: unnamed;
// "!name|data": an exception message).
func toyEvents(specs ...string) []Event {
	evs := make([]Event, len(specs))
	for i, s := range specs {
		name, data, ok := strings.Cut(s, "|")
		if !ok {
			name, data = "", s
		}
		e := Event{Index: i, Name: name, Data: data, Terminated: true}
		if strings.HasPrefix(name, "!") {
			e.Name, e.MessageType = name[1:], "exception"
		}
		evs[i] = e
	}
	return evs
}

func toyRun(f family, settled bool, specs ...string) (*Assembly, *toyState) {
	a := newAssembly(Unknown)
	s := &toyState{a: a, settled: settled, n: -1}
	drive(a, &f, toyEvents(specs...), s, &toyHandlers)
	return a, s
}

// anomalies renders a's anomalies as "id@event: message".
func anomalies(a *Assembly) []string {
	var out []string
	for _, x := range a.Anomalies {
		out = append(out, fmt.Sprintf("%s@%d: %s", x.ID, x.Event, x.Msg))
	}
	return out
}

const (
	toyStart = `{"type":"start"}`
	toyDelta = `{"type":"delta"}`
	toyEnd   = `{"type":"end"}`
)

// TestDrive runs the driver over toy families, one rule at a time: which
// events reach the handlers, which shared detectors it raises with the
// row's messages, and which of the family's own it calls for.
func TestDrive(t *testing.T) {
	t.Parallel()
	base := family{typed: false, ends: []string{"end"}, lost: "lost", late: "late {type}", stray: "stray",
		trailing: "trailing", invalid: "invalid {name}", noEnd: "no end", renamed: "renamed"}
	with := func(edit func(f *family)) family {
		f := base
		edit(&f)
		return f
	}
	for _, tc := range []struct {
		name      string
		f         family
		settled   bool
		events    []string
		each, own []string
		anomalies []string
		terminal  int
	}{{
		name:   "clients stop at the end: later events are lost, a [DONE] after it trailing",
		f:      with(func(f *family) { f.stops, f.done = stopAtEnd, doneStray }),
		events: []string{toyDelta, toyEnd, toyDelta, "[DONE]", "{bad"},
		each:   []string{"0:delta", "1:end"}, terminal: 1,
		anomalies: []string{"stream.after-terminal@2: lost", "stream.trailing-done@3: trailing", "stream.after-terminal@4: lost"},
	}, {
		name:   "a [DONE] that ends the stream",
		f:      with(func(f *family) { f.stops, f.done, f.ends = stopAtEnd, doneEnds, nil }),
		events: []string{toyDelta, " [DONE]\n", "[DONE]"},
		each:   []string{"0:delta"}, terminal: 1,
		anomalies: []string{"stream.trailing-done@2: trailing"},
	}, {
		name:   "a stray [DONE] is not decoded, wherever it comes",
		f:      with(func(f *family) { f.done = doneStray }),
		events: []string{toyDelta, "[DONE]", toyEnd, "[DONE]"},
		each:   []string{"0:delta", "2:end"}, terminal: 2,
		anomalies: []string{"stream.after-terminal@1: stray", "stream.after-terminal@3: stray"},
	}, {
		name:   "a [DONE] that is the family's own untyped data",
		f:      with(func(f *family) { f.done = doneUntyped }),
		events: []string{"[DONE]", toyEnd},
		each:   []string{"1:end"}, own: []string{fmt.Sprintf("%d@0", ownDone)}, terminal: 1,
	}, {
		name:   "clients stop at the [DONE] after the end: late before it, lost after it",
		f:      with(func(f *family) { f.stops, f.done = stopAtDone, doneStops }),
		events: []string{toyEnd, toyDelta, "[DONE]", toyDelta, "[DONE]"},
		each:   []string{"0:end", "1:delta"}, terminal: 0,
		anomalies: []string{"stream.after-end@1: late delta", "stream.after-terminal@3: lost"},
	}, {
		name:   "a [DONE] before the end stops the client without it",
		f:      with(func(f *family) { f.stops, f.done = stopAtDone, doneStops }),
		events: []string{toyDelta, "[DONE]", toyDelta},
		each:   []string{"0:delta"}, terminal: -1,
		anomalies: []string{"stream.no-terminal@1: stray", "stream.after-terminal@2: lost"},
	}, {
		name:   "without a [DONE] rule, [DONE] is invalid JSON",
		f:      base,
		events: []string{"ev|[DONE]", toyEnd},
		each:   []string{"1:end"}, terminal: 1,
		anomalies: []string{"payload.invalid-json@0: invalid ev"},
	}, {
		name:   "late events are read; only those that matter are flagged, once when the row says",
		f:      with(func(f *family) { f.lateOnce = true }),
		events: []string{toyEnd, `{"type":"delta","quiet":true}`, toyDelta, toyDelta},
		each:   []string{"0:end", "1:delta", "2:delta", "3:delta"}, terminal: 0,
		anomalies: []string{"stream.after-end@2: late delta"},
	}, {
		name:   "the trailer is due after the end; anything after it is late, even before the end",
		f:      with(func(f *family) { f.trailer, f.afterTrailer, f.lateByName = "meta", "after meta {name}", true }),
		events: []string{`m|{"type":"meta"}`, "e|" + toyEnd, `m|{"type":"meta"}`, `x|{"type":"delta"}`},
		each:   []string{"0:meta", "1:end", "2:meta", "3:delta"}, terminal: 1,
		anomalies: []string{"stream.after-end@1: after meta e", "stream.after-end@2: after meta m", "stream.after-end@3: after meta x"},
	}, {
		name:   "a payload without a type is the family's own",
		f:      with(func(f *family) { f.typed = true }),
		events: []string{`{"x":1}`, toyEnd},
		each:   []string{"1:end"}, own: []string{fmt.Sprintf("%d@0", ownUntyped)}, terminal: 1,
	}, {
		name:   "clients follow the type: a name that differs is flagged once",
		f:      with(func(f *family) { f.names = namesFollowType }),
		events: []string{"message|" + toyDelta, "x|" + toyDelta, "y|" + toyDelta, "end|" + toyEnd},
		each:   []string{"0:delta", "1:delta", "2:delta", "3:end"}, terminal: 3,
		anomalies: []string{"stream.event-name-mismatch@1: renamed"},
	}, {
		name:   "clients route by the name: missing and different names are the family's own",
		f:      with(func(f *family) { f.names = namesRoute }),
		events: []string{toyDelta, "x|" + toyDelta, "end|" + toyEnd},
		each:   []string{"0:delta", "1:delta", "2:end"}, terminal: 2,
		own: []string{fmt.Sprintf("%d@0", ownUnnamed), fmt.Sprintf("%d@1", ownRenamed)},
	}, {
		name:   "the opening event: events before it (but the free ones) and a second one are the family's own",
		f:      with(func(f *family) { f.start, f.startFree = "start", []string{"ping"} }),
		events: []string{`{"type":"ping"}`, toyDelta, toyStart, toyStart, toyEnd},
		each:   []string{"0:ping", "1:delta", "2:start", "3:start", "4:end"}, terminal: 4,
		own: []string{fmt.Sprintf("%d@1", ownEarly), fmt.Sprintf("%d@3", ownAgain)},
	}, {
		name:   "a stream that never ends",
		f:      base,
		events: []string{toyDelta, toyDelta},
		each:   []string{"0:delta", "1:delta"}, terminal: -1,
		anomalies: []string{"stream.no-terminal@1: no end"},
	}, {
		name:    "a stream that reached its semantic end without its terminal",
		f:       with(func(f *family) { f.settles = true }),
		settled: true,
		events:  []string{toyDelta},
		each:    []string{"0:delta"}, own: []string{fmt.Sprintf("%d@0", ownSettled)}, terminal: -1,
	}, {
		name:   "an exception message ends the stream with its error",
		f:      with(func(f *family) { f.exceptions = true }),
		events: []string{toyDelta, `!ThrottlingException|{"message":"slow down"}`, toyDelta},
		each:   []string{"0:delta", "2:delta"}, terminal: 1,
		anomalies: []string{"stream.error-event@1: the stream carries an exception message: ThrottlingException: slow down",
			"stream.after-end@2: late delta"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			a, s := toyRun(tc.f, tc.settled, tc.events...)
			if got := anomalies(a); !slices.Equal(got, tc.anomalies) {
				t.Errorf("anomalies:\n got %q\nwant %q", got, tc.anomalies)
			}
			if !slices.Equal(s.each, tc.each) {
				t.Errorf("events handled: got %q, want %q", s.each, tc.each)
			}
			if !slices.Equal(s.own, tc.own) {
				t.Errorf("own detectors: got %q, want %q", s.own, tc.own)
			}
			if a.Terminal != tc.terminal {
				t.Errorf("terminal: got %d, want %d", a.Terminal, tc.terminal)
			}
			if s.n != len(tc.events) {
				t.Errorf("finish got n = %d, want %d", s.n, len(tc.events))
			}
		})
	}
}

// TestDriveRoutesByType checks that each event reaches the handler of its
// type, after each, and that a type without one reaches none.
func TestDriveRoutesByType(t *testing.T) {
	t.Parallel()
	_, s := toyRun(family{ends: []string{"end"}}, false, toyDelta, `{"type":"other"}`, toyDelta, toyDelta, toyEnd)
	if want := []string{"0:delta", "2:delta", "3:delta", "4:end"}; !slices.Equal(s.on, want) {
		t.Errorf("typed handlers got %q, want %q", s.on, want)
	}
}

// TestFamiliesWired checks every row of the families table: one row per
// protocol, listed by Protocols, named by its aliases, described by Rule,
// and assembled by Assemble.
func TestFamiliesWired(t *testing.T) {
	t.Parallel()
	seen := map[Protocol]bool{}
	for i, f := range families {
		if seen[f.proto] {
			t.Errorf("%s has two rows", f.proto)
		}
		seen[f.proto] = true
		if Protocols()[i] != f.proto {
			t.Errorf("Protocols()[%d] = %s, want %s", i, Protocols()[i], f.proto)
		}
		if f.proto.Rule() != f.rule || f.rule == "" {
			t.Errorf("%s: Rule() = %q, want the row's %q", f.proto, f.proto.Rule(), f.rule)
		}
		for _, name := range append([]string{string(f.proto)}, f.aliases...) {
			if p, err := ParseName(strings.ToUpper(name)); p != f.proto || err != nil {
				t.Errorf("ParseName(%q) = %s, %v; want %s", name, p, err, f.proto)
			}
		}
		if a := Assemble(f.proto, &Side{Events: toyEvents("{}")}); a.Message.Protocol != f.proto {
			t.Errorf("Assemble(%s) assembled %s: the protocol has no assembler", f.proto, a.Message.Protocol)
		}
		if f.endsBy == "" || f.errors == "" || f.noEnd == "" || f.invalid == "" {
			t.Errorf("%s: the row does not say what ends its streams, what an error is, or the message of a cut or invalid event", f.proto)
		}
	}
}

// TestWatchKnowsEveryEnd checks that the recorder's terminal watch ends a
// stream at every terminal event the families table names, as the
// assembler does: by the event's name, and, for the families whose
// payloads carry their type, by the type of an unnamed event.
func TestWatchKnowsEveryEnd(t *testing.T) {
	t.Parallel()
	for _, f := range families {
		for _, end := range f.ends {
			w := NewWatch("text/event-stream", "/")
			if !w.isTerminal(&framing.Frame{Name: end}, []byte(`{}`)) {
				t.Errorf("%s: the watch does not end a stream at an event named %s", f.proto, end)
			}
			if f.key == "type" && !w.isTerminal(&framing.Frame{}, []byte(`{"type":"`+end+`"}`)) {
				t.Errorf("%s: the watch does not end a stream at an unnamed event of type %s", f.proto, end)
			}
		}
	}
}
