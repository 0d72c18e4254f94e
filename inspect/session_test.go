package inspect

import (
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/session"
	"github.com/seam-dev/seam/tape"
)

var loopProtos = []string{"chat", "anthropic", "responses", "responses-prev"}

// runLoop makes n turns of a loop numbered from first, turn 6 answered
// with text; turn k reports 100k tokens in and 10k out.
func runLoop(l *agentLoop, first, n int) []*tape.Exchange {
	var xs []*tape.Exchange
	for i := range n {
		k := l.turn + 1
		xs = append(xs, l.step(first+i, k == 6, 100*k, 10*k))
	}
	return xs
}

func sessionFindings(x *ExchangeReport) []Finding {
	var out []Finding
	for _, f := range x.Findings {
		if strings.HasPrefix(f.ID, "session.") {
			out = append(out, f)
		}
	}
	return out
}

// TestSessionLoop: a six-turn tool loop in each protocol is one session of
// six turns, each extending the one before, with the totals of its turns.
func TestSessionLoop(t *testing.T) {
	for _, proto := range loopProtos {
		t.Run(proto, func(t *testing.T) {
			xs := runLoop(newLoop(proto, "fix the failing test"), 1, 6)
			rep := Inspect(loopCapture("loop.ndjson", xs...), Options{})
			if len(rep.Sessions) != 1 {
				t.Fatalf("%d sessions, want 1: %+v", len(rep.Sessions), rep.Sessions)
			}
			s := rep.Sessions[0]
			if s.Turns != 6 || s.ToolCalls != 5 || s.TokensIn != 2100 || s.TokensOut != 210 || s.UsageTurns != 6 || s.Rewrites != 0 || s.Failed != 0 {
				t.Errorf("totals %+v", s)
			}
			wantDur := xs[5].Upstream.End.T - xs[0].Request.T
			if s.Dur != wantDur || !s.Start.Equal(loopCapture("", nil).Header.Started.Add(time.Duration(xs[0].Request.T))) {
				t.Errorf("duration %d, want %d; start %v", s.Dur, wantDur, s.Start)
			}
			for i, x := range rep.Exchanges {
				ref := x.Session
				if ref == nil || ref.ID != s.ID || ref.Turn != i+1 {
					t.Fatalf("exchange %d: session %+v", x.Ex, ref)
				}
				if i == 0 && ref.Parent != nil || i > 0 && (ref.Parent == nil || ref.Parent.Ex != i) {
					t.Errorf("exchange %d: parent %+v", x.Ex, ref.Parent)
				}
				if want := 2 + 2*i; ref.Messages != want {
					t.Errorf("exchange %d: %d messages, want %d", x.Ex, ref.Messages, want)
				}
				if fs := sessionFindings(x); len(fs) > 0 {
					t.Errorf("exchange %d: %+v", x.Ex, fs)
				}
			}
		})
	}
}

// TestSessionAcrossCaptures: a loop recorded into two captures, inspected
// with one Sessions, is one session; the second capture's first turn
// extends the first capture's last.
func TestSessionAcrossCaptures(t *testing.T) {
	for _, proto := range loopProtos {
		t.Run(proto, func(t *testing.T) {
			l := newLoop(proto, "fix the failing test")
			a, b := runLoop(l, 1, 3), runLoop(l, 1, 3)
			ss := session.NewLinker()
			ra := Inspect(loopCapture("dir/a.ndjson", a...), Options{Sessions: ss})
			rb := Inspect(loopCapture("dir/b.ndjson", b...), Options{Sessions: ss})
			if ra.Sessions != nil || rb.Sessions != nil {
				t.Error("a report lists sessions it did not link itself")
			}
			if n := len(ss.List()); n != 1 {
				t.Fatalf("%d sessions, want 1", n)
			}
			first := rb.Exchanges[0].Session
			if first.Turn != 4 || first.Parent == nil || *first.Parent != (session.ExchangeRef{Capture: "dir/a.ndjson", Ex: 3}) {
				t.Errorf("b#1: %+v", first)
			}
			if got := ss.Of(session.ExchangeRef{Capture: "dir/b.ndjson", Ex: 3}); got == nil || got.Turn != 6 || got.Parent == nil || *got.Parent != (session.ExchangeRef{Capture: "dir/b.ndjson", Ex: 2}) {
				t.Errorf("b#3: %+v", got)
			}
			if s := ss.List()[0]; s.Turns != 6 || s.ToolCalls != 5 || len(s.Exchanges) != 6 || s.Exchanges[3] != (session.ExchangeRef{Capture: "dir/b.ndjson", Ex: 1}) {
				t.Errorf("session %+v", s)
			}
		})
	}
}

// TestSessionTurnDropped: a request that leaves out a tool result of the
// history (as a proxy that loses tool results sends it) and goes on with
// the turns after it is session.turn-dropped, an error naming the message
// and the exchange that had it.
func TestSessionTurnDropped(t *testing.T) {
	for _, proto := range []string{"chat", "anthropic", "responses"} {
		t.Run(proto, func(t *testing.T) {
			l := newLoop(proto, "fix the failing test")
			xs := runLoop(l, 1, 3)
			// hist: user, a1, r1, a2, r2, a3, r3: drop r2.
			l.hist = append(l.hist[:4:4], l.hist[5:]...)
			xs = append(xs, runLoop(l, 4, 2)...)
			rep := Inspect(loopCapture("loop.ndjson", xs...), Options{})
			if len(rep.Sessions) != 1 || rep.Sessions[0].Rewrites != 1 {
				t.Fatalf("sessions %+v", rep.Sessions)
			}
			for _, x := range rep.Exchanges {
				fs := sessionFindings(x)
				if x.Ex != 4 {
					if len(fs) > 0 {
						t.Errorf("exchange %d: %+v", x.Ex, fs)
					}
					continue
				}
				if len(fs) != 1 || fs[0].ID != "session.turn-dropped" || fs[0].Severity != Error {
					t.Fatalf("exchange 4: %+v", fs)
				}
				want := "leaves out message 5 (tool result for call_2) that exchange 3 had"
				if !strings.Contains(fs[0].Message, want) || fs[0].Evidence != "package f2" {
					t.Errorf("finding %q (evidence %q), want %q", fs[0].Message, fs[0].Evidence, want)
				}
				if x.Session.Parent == nil || x.Session.Parent.Ex != 2 {
					t.Errorf("parent %+v", x.Session.Parent)
				}
			}
		})
	}
}

// TestSessionTurnEdited: a request that changes an earlier tool result
// and goes on with the turns that followed it is session.turn-edited; one
// that drops the assistant's reply but keeps its tool result is
// turn-dropped.
func TestSessionTurnEdited(t *testing.T) {
	for _, proto := range []string{"chat", "anthropic", "responses"} {
		t.Run(proto, func(t *testing.T) {
			l := newLoop(proto, "fix the failing test")
			xs := runLoop(l, 1, 3)
			edited := newLoop(proto, "")
			edited.hist = append([]any(nil), l.hist...)
			switch proto {
			case "chat":
				edited.hist[2] = map[string]any{"role": "tool", "tool_call_id": "call_1", "content": "package other"}
			case "anthropic":
				edited.hist[2] = map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "call_1", "content": "package other"}}}
			default:
				edited.hist[2] = map[string]any{"type": "function_call_output", "call_id": "call_1", "output": "package other"}
			}
			edited.turn, edited.t = 3, l.t
			xs = append(xs, edited.step(4, false, 1, 1))
			noReply := newLoop(proto, "")
			noReply.hist = append(l.hist[:3:3], l.hist[4:]...) // a2 left out, r2 kept
			noReply.turn, noReply.t = 4, edited.t
			xs = append(xs, noReply.step(5, false, 1, 1))
			rep := Inspect(loopCapture("loop.ndjson", xs...), Options{})
			fs := sessionFindings(rep.Exchanges[3])
			if len(fs) != 1 || fs[0].ID != "session.turn-edited" || fs[0].Severity != Warn ||
				!strings.Contains(fs[0].Message, "message 3 (tool result for call_1) differs from the one exchange 3 had there") || fs[0].Evidence != "package other" {
				t.Errorf("edited: %+v", fs)
			}
			fs = sessionFindings(rep.Exchanges[4])
			if len(fs) != 1 || fs[0].ID != "session.turn-dropped" || !strings.Contains(fs[0].Message, "message 4 (assistant message calling read_file)") {
				t.Errorf("reply dropped: %+v", fs)
			}
		})
	}
}

// TestSessionBranches: what a conversation legitimately does is not a
// rewrite: a user who edits the last prompt (a branch after a reply), a
// retry after a failed response, the same conversation started again (a
// new session), another conversation with the same system prompt (its own
// session).
func TestSessionBranches(t *testing.T) {
	l := newLoop("chat", "fix the failing test")
	xs := runLoop(l, 1, 2) // 1, 2
	// A branch: after turn 1's reply and result, another user message.
	b := newLoop("chat", "")
	b.hist = append(append([]any(nil), l.hist[:3]...), map[string]any{"role": "user", "content": "no, look at f9.go instead"})
	b.turn, b.t = 10, l.t
	xs = append(xs, b.step(3, false, 1, 1))
	// A retry: the next turn fails, then is sent again.
	failed := l.step(4, false, 1, 1)
	failed.Upstream.Chunks = failed.Upstream.Chunks[:1]
	failed.Upstream.End.Outcome, failed.Upstream.End.Error = tape.UpstreamError, "connection reset"
	l.turn--
	l.hist = l.hist[:len(l.hist)-2]
	xs = append(xs, failed, l.step(5, true, 1, 1))
	// The same conversation again, and another one.
	again := runLoop(newLoop("chat", "fix the failing test"), 6, 2)
	other := runLoop(newLoop("chat", "write a README"), 8, 2)
	xs = append(append(xs, again...), other...)
	rep := Inspect(loopCapture("loop.ndjson", xs...), Options{})
	for _, x := range rep.Exchanges {
		if fs := sessionFindings(x); len(fs) > 0 {
			t.Errorf("exchange %d: %+v", x.Ex, fs)
		}
	}
	if len(rep.Sessions) != 3 {
		t.Fatalf("%d sessions, want 3", len(rep.Sessions))
	}
	s0 := rep.Sessions[0]
	if s0.Turns != 5 || s0.Failed != 1 {
		t.Errorf("first session %+v", s0)
	}
	ref := func(ex int) *session.Ref { return rep.Exchanges[ex-1].Session }
	if p := ref(3).Parent; p == nil || p.Ex != 1 {
		t.Errorf("branch parent %+v", p)
	}
	if r := ref(5); r.ID != s0.ID || r.Repeats == nil || r.Repeats.Ex != 4 || r.Parent == nil || r.Parent.Ex != 2 {
		t.Errorf("retry %+v", r)
	}
	if r := ref(6); r.ID == s0.ID || r.Repeats == nil || r.Repeats.Ex != 1 || r.Turn != 1 {
		t.Errorf("started again %+v", r)
	}
	if r := ref(7); r.ID != ref(6).ID || r.Parent == nil || r.Parent.Ex != 6 {
		t.Errorf("second run's turn 2 %+v", r)
	}
	if r := ref(8); r.ID == s0.ID || r.ID == ref(6).ID {
		t.Errorf("another conversation joined a session: %+v", r)
	}
}

// TestSessionRelink: an exchange inspected again (a followed capture that
// grew) keeps its place and counts once.
func TestSessionRelink(t *testing.T) {
	l := newLoop("chat", "fix the failing test")
	xs := runLoop(l, 1, 2)
	ss := session.NewLinker()
	open := *xs[1]
	open.Upstream = tape.SideData{Response: xs[1].Upstream.Response, Chunks: xs[1].Upstream.Chunks[:1]}
	Inspect(loopCapture("loop.ndjson", xs[0], &open), Options{Sessions: ss})
	rep := Inspect(loopCapture("loop.ndjson", xs...), Options{Sessions: ss})
	s := ss.List()
	if len(s) != 1 || s[0].Turns != 2 || s[0].TokensIn != 300 || s[0].UsageTurns != 2 || rep.Exchanges[1].Session.Turn != 2 {
		t.Errorf("sessions %+v, ref %+v", s[0], rep.Exchanges[1].Session)
	}
}
