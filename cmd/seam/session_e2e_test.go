package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seam-dev/seam/tape"
)

// loopTurns is how many turns the agent loop of the end-to-end test runs:
// a tool call each, then an answer.
const loopTurns = 7

// loopGaps are the gaps between the chunks of each turn's stream, in
// milliseconds; turn 5 has a gap over the 200 ms stall threshold.
func loopGaps(turn int) []int {
	g := []int{2 + turn, 4, 7 + 2*turn, 11, 16 - turn, 3, 25}
	if turn == 5 {
		g[3] = 260
	}
	return g
}

// writeLoopUpstream writes the capture "seam serve" answers the loop from:
// runs times the turns' streams, in order (serve answers requests that
// match alike in recorded order).
func writeLoopUpstream(t *testing.T, path string, runs int) {
	t.Helper()
	h := tape.Header{V: 1, Seam: "test", ID: "loop-upstream", Started: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC), Upstream: "http://127.0.0.1", Engine: tape.Engine{Profile: "passthrough"}}
	b := tape.AppendHeader(nil, h)
	ex := 0
	for range runs {
		for turn := 1; turn <= loopTurns; turn++ {
			ex++
			reqT := int64(ex) * int64(10*time.Second)
			b = tape.AppendRequest(b, tape.Request{Ex: ex, T: reqT, Method: "POST", URL: "/v1/chat/completions",
				Headers: tape.Headers{"content-type": {"application/json"}}, Body: []byte(`{"model":"m-e2e","stream":true,"messages":[]}`)})
			t0 := reqT + int64(40*time.Millisecond)
			b = tape.AppendResponse(b, tape.Response{Ex: ex, Side: tape.Upstream, T: t0, Status: 200, Headers: tape.Headers{"content-type": {"text/event-stream"}}})
			var off int64
			at := t0 + int64(20*time.Millisecond)
			for i, e := range loopEvents(turn) {
				if i > 0 {
					at += int64(loopGaps(turn)[(i-1)%len(loopGaps(turn))]) * int64(time.Millisecond)
				}
				b = tape.AppendChunk(b, tape.Chunk{Ex: ex, Side: tape.Upstream, T: at, Off: off, Data: []byte(e)})
				off += int64(len(e))
			}
			b = tape.AppendEnd(b, tape.End{Ex: ex, Side: tape.Upstream, T: at, Outcome: tape.Complete, Bytes: off})
		}
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// loopEvents is turn's Chat Completions stream: a read_file call (text on
// the last turn), the finish, the usage and [DONE].
func loopEvents(turn int) []string {
	head := fmt.Sprintf(`{"id":"chatcmpl-%d","object":"chat.completion.chunk","model":"m-e2e","choices":[{"index":0,"delta":`, turn)
	var ev []string
	if turn == loopTurns {
		ev = append(ev, head+`{"role":"assistant","content":"The tests "},"finish_reason":null}]}`,
			head+`{"content":"pass now."},"finish_reason":null}]}`,
			head+`{},"finish_reason":"stop"}]}`)
	} else {
		args := fmt.Sprintf(`{"path":"f%d.go"}`, turn)
		ev = append(ev, head+fmt.Sprintf(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_%d","type":"function","function":{"name":"read_file","arguments":""}}]},"finish_reason":null}]}`, turn),
			head+fmt.Sprintf(`{"tool_calls":[{"index":0,"function":{"arguments":%q}}]},"finish_reason":null}]}`, args[:9]),
			head+fmt.Sprintf(`{"tool_calls":[{"index":0,"function":{"arguments":%q}}]},"finish_reason":null}]}`, args[9:]),
			head+`{},"finish_reason":"tool_calls"}]}`)
	}
	ev = append(ev, fmt.Sprintf(`{"id":"chatcmpl-%d","object":"chat.completion.chunk","model":"m-e2e","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, turn, 90*turn+7, 11*turn+3, 101*turn+10), "[DONE]")
	for i := range ev {
		ev[i] = "data: " + ev[i] + "\n\n"
	}
	return ev
}

// runAgent drives an agent's tool loop through "seam record" in front of
// upstream, recording to out: each turn sends the whole history, reads the
// stream, and adds the assistant's call and the tool's result. With
// rewrite, the requests from turn 4 on leave out turn 2's tool result, as
// a proxy that loses tool results sends them.
func runAgent(t *testing.T, upstream, out string, rewrite bool) {
	t.Helper()
	rec, addr := startRecord(t, upstream, out)
	msgs := []map[string]any{
		{"role": "system", "content": "You are a coding agent."},
		{"role": "user", "content": "make the failing test pass"},
	}
	for turn := 1; turn <= loopTurns; turn++ {
		send := msgs
		if rewrite && turn >= 4 {
			send = slices.DeleteFunc(slices.Clone(msgs), func(m map[string]any) bool { return m["tool_call_id"] == "call_2" })
		}
		body, _ := json.Marshal(map[string]any{"model": "m-e2e", "stream": true, "stream_options": map[string]any{"include_usage": true}, "messages": send})
		resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("turn %d: %d %v\n%s", turn, resp.StatusCode, err, raw)
		}
		var id, name, args, text string
		for _, line := range strings.Split(string(raw), "\n") {
			data, ok := strings.CutPrefix(line, "data: ")
			if !ok || data == "[DONE]" {
				continue
			}
			var ck struct {
				Choices []struct {
					Delta struct {
						Content   string `json:"content"`
						ToolCalls []struct {
							ID       string `json:"id"`
							Function struct{ Name, Arguments string }
						} `json:"tool_calls"`
					} `json:"delta"`
				} `json:"choices"`
			}
			if err := json.Unmarshal([]byte(data), &ck); err != nil {
				t.Fatalf("turn %d: %v", turn, err)
			}
			for _, c := range ck.Choices {
				text += c.Delta.Content
				for _, tc := range c.Delta.ToolCalls {
					id, name, args = id+tc.ID, name+tc.Function.Name, args+tc.Function.Arguments
				}
			}
		}
		if turn == loopTurns {
			if text != "The tests pass now." {
				t.Fatalf("last turn said %q", text)
			}
			break
		}
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": fmt.Sprintf("package f%d // contents of f%d.go", turn, turn)})
	}
	rec.Process.Signal(os.Interrupt)
	if err := rec.Wait(); err != nil {
		t.Fatalf("seam record: %v", err)
	}
}

// TestAgentLoopSessions records a seven-turn tool loop twice through the
// real "seam record" in front of the real "seam serve", the second run
// losing a tool result from turn 4 on, then checks what seam finds across
// the two captures: two sessions of seven turns, the rewrite named at run
// 2's fourth turn, and stats whose figures equal those computed here from
// the capture lines.
func TestAgentLoopSessions(t *testing.T) {
	dir := t.TempDir()
	upCap := filepath.Join(dir, "upstream.ndjson")
	writeLoopUpstream(t, upCap, 2)
	_, upAddr := startSeam(t, `on http://(\S+)`, "serve", "--listen", "127.0.0.1:0", "--speed", "1", "--ignore", "messages", "--ignore", "stream_options", upCap)
	caps := filepath.Join(dir, "captures")
	// The second run goes compressed into a subdirectory: read all the
	// same.
	run1, run2 := filepath.Join(caps, "run1.ndjson"), filepath.Join(caps, "more", "run2.ndjson.zst")
	runAgent(t, "http://"+upAddr, run1, false)
	runAgent(t, "http://"+upAddr, run2, true)

	// Sessions and the rewrite, as inspect --json reports them.
	out, err := seamOutput("inspect", "--json", caps)
	if err != nil {
		t.Fatalf("seam inspect: %v", err)
	}
	var doc struct {
		Captures []struct {
			Capture   string
			Exchanges []struct {
				Ex      int
				Session *struct {
					ID              string
					Turn            int
					Parent, Repeats *struct {
						Capture string
						Ex      int
					}
				}
				Findings []struct{ ID, Severity, Message, Evidence string }
			}
		}
		Sessions []struct {
			ID        string
			Turns     int
			ToolCalls int `json:"tool_calls"`
			TokensIn  int `json:"tokens_in"`
			TokensOut int `json:"tokens_out"`
			Rewrites  int
		} `json:"sessions"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("inspect --json: %v\n%s", err, out)
	}
	if len(doc.Captures) != 2 || len(doc.Sessions) != 2 {
		t.Fatalf("%d captures, %d sessions", len(doc.Captures), len(doc.Sessions))
	}
	for i, s := range doc.Sessions {
		wantIn, wantOut := 0, 0
		for turn := 1; turn <= loopTurns; turn++ {
			wantIn, wantOut = wantIn+90*turn+7, wantOut+11*turn+3
		}
		if s.Turns != loopTurns || s.ToolCalls != loopTurns-1 || s.TokensIn != wantIn || s.TokensOut != wantOut || s.Rewrites != i {
			t.Errorf("session %d: %+v", i+1, s)
		}
	}
	ids := map[string]string{}
	for _, c := range doc.Captures {
		for _, x := range c.Exchanges {
			run := filepath.Base(c.Capture)
			ref := x.Session
			if ref == nil || ref.Turn != x.Ex {
				t.Fatalf("%s#%d: session %+v", run, x.Ex, ref)
			}
			if ids[run] == "" {
				ids[run] = ref.ID
			}
			if ref.ID != ids[run] {
				t.Errorf("%s#%d is in session %s, its run in %s", run, x.Ex, ref.ID, ids[run])
			}
			switch {
			case x.Ex == 1 && run == "run2.ndjson.zst":
				if ref.Repeats == nil || filepath.Base(ref.Repeats.Capture) != "run1.ndjson" || ref.Parent != nil {
					t.Errorf("run 2 starts over run 1's first request: %+v", ref)
				}
			case x.Ex > 1:
				// Each turn extends the one before; the rewritten request
				// extends turn 2, the last whose history it keeps whole.
				parent := x.Ex - 1
				if run == "run2.ndjson.zst" && x.Ex == 4 {
					parent = 2
				}
				if ref.Parent == nil || ref.Parent.Capture != c.Capture || ref.Parent.Ex != parent {
					t.Errorf("%s#%d extends %+v, want #%d", run, x.Ex, ref.Parent, parent)
				}
			}
			var rewrites []string
			for _, f := range x.Findings {
				if strings.HasPrefix(f.ID, "session.") {
					rewrites = append(rewrites, f.Severity+" "+f.ID+": "+f.Message+" ["+f.Evidence+"]")
				}
			}
			want := 0
			if run == "run2.ndjson.zst" && x.Ex == 4 {
				want = 1
			}
			if len(rewrites) != want {
				t.Errorf("%s#%d: rewrite findings %q", run, x.Ex, rewrites)
			}
			if want == 1 && !strings.Contains(rewrites[0], "error session.turn-dropped: the history leaves out message 5 (tool result for call_2) that exchange 3 had") {
				t.Errorf("the rewrite reads %q", rewrites[0])
			}
		}
	}
	if ids["run1.ndjson"] == ids["run2.ndjson.zst"] {
		t.Error("the two runs share a session")
	}

	// Stats, against figures computed here from the capture lines.
	out, err = seamOutput("stats", "--json", "--by", "session", "--stall", "200ms", caps)
	if err != nil {
		t.Fatalf("seam stats: %v", err)
	}
	var stats struct {
		Groups []statsFigures
		Total  statsFigures
	}
	if err := json.Unmarshal(out, &stats); err != nil {
		t.Fatal(err)
	}
	for _, g := range stats.Groups {
		run := "run1.ndjson"
		path := run1
		if g.Key["session"] == ids["run2.ndjson.zst"] {
			run, path = "run2.ndjson.zst", run2
		}
		want := independentFigures(t, path)
		want.Key = g.Key
		compareFigures(t, run, g, want)
	}
	all := independentFigures(t, run1, run2)
	all.Key = stats.Total.Key
	compareFigures(t, "all", stats.Total, all)

	// The rewrite is findable, and the lost result is in no request of
	// run 2 after turn 3.
	out, _ = seamOutput("grep", "-l", "--in", "request", "contents of f2.go", caps)
	want := []string{run1 + "#3", run1 + "#4", run1 + "#5", run1 + "#6", run1 + "#7", run2 + "#3"}
	if got := strings.Fields(string(out)); !slices.Equal(got, want) {
		t.Errorf("grep -l: %q, want %q", got, want)
	}
	out, _ = seamOutput("inspect", "--where", "finding=session.* sev>=error", caps)
	if !strings.Contains(string(out), "1 exchange") || !strings.Contains(string(out), "run2.ndjson.zst#4") {
		t.Errorf("inspect --where:\n%s", out)
	}
}

// statsFigures is what the test reads of a stats group.
type statsFigures struct {
	Key              map[string]string
	Exchanges        int
	Failed           int
	TTFB             map[string]int64 `json:"ttfb_ns"`
	Gap              map[string]int64 `json:"gap_ns"`
	Stalls           int
	StalledExchanges int     `json:"stalled_exchanges"`
	TokensIn         int     `json:"tokens_in"`
	TokensOut        int     `json:"tokens_out"`
	UsageExchanges   int     `json:"usage_exchanges"`
	TokensPerS       float64 `json:"tokens_per_s"`
}

func compareFigures(t *testing.T, name string, got, want statsFigures) {
	t.Helper()
	if math.Abs(got.TokensPerS-want.TokensPerS) > 1e-6*want.TokensPerS {
		t.Errorf("%s: tokens/s %v, computed %v", name, got.TokensPerS, want.TokensPerS)
	}
	got.TokensPerS, want.TokensPerS = 0, 0
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("%s: stats\n%s\ncomputed\n%s", name, g, w)
	}
}

// independentFigures computes a stats group of the captures from their
// lines, read with encoding/json, not package tape's decoder (tape only
// decompresses a .zst capture; a chunk's "sse" pieces are joined here as
// FORMAT.md says): per exchange the time
// from the request to the first client chunk, every gap between client
// chunks, the usage of the upstream stream, nearest-rank percentiles.
func independentFigures(t *testing.T, paths ...string) statsFigures {
	t.Helper()
	var ttfbs, gaps []int64
	f := statsFigures{}
	var rateOut, rateNs int64
	for _, path := range paths {
		file, r, err := tape.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 16<<20)
		reqT := map[int]int64{}
		client := map[int][]int64{}
		usage := map[int][2]int{}
		for sc.Scan() {
			var l struct {
				Type, Side, Data, DataB64 string
				Ex                        int
				T                         int64
				// SSE holds the data of a v3 chunk line: strings as
				// they are, events as their JSON value.
				SSE []json.RawMessage
				// Client is [t, off] of the client chunk a v3 upstream
				// line stands for too.
				Client []int64
			}
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatal(err)
			}
			if l.DataB64 == "" {
				var raw map[string]any
				json.Unmarshal(sc.Bytes(), &raw)
				if s, ok := raw["data_b64"].(string); ok {
					l.DataB64 = s
				}
			}
			switch {
			case l.Type == "request":
				reqT[l.Ex] = l.T
			case l.Type == "chunk" && l.Side == "client":
				client[l.Ex] = append(client[l.Ex], l.T)
			case l.Type == "chunk" && l.Side == "upstream":
				if len(l.Client) == 2 {
					client[l.Ex] = append(client[l.Ex], l.Client[0])
				}
				data := l.Data
				for _, p := range l.SSE {
					var s string
					if json.Unmarshal(p, &s) != nil {
						s = "data: " + string(p) + "\n\n"
					}
					data += s
				}
				if l.DataB64 != "" {
					b, _ := base64.StdEncoding.DecodeString(l.DataB64)
					data = string(b)
				}
				for _, line := range strings.Split(data, "\n") {
					var u struct {
						Usage *struct {
							Prompt     int `json:"prompt_tokens"`
							Completion int `json:"completion_tokens"`
						}
					}
					if p, ok := strings.CutPrefix(line, "data: "); ok && json.Unmarshal([]byte(p), &u) == nil && u.Usage != nil {
						usage[l.Ex] = [2]int{u.Usage.Prompt, u.Usage.Completion}
					}
				}
			}
		}
		file.Close()
		for ex, ts := range client {
			f.Exchanges++
			ttfbs = append(ttfbs, ts[0]-reqT[ex])
			stalled := false
			for i := 1; i < len(ts); i++ {
				gaps = append(gaps, ts[i]-ts[i-1])
				if ts[i]-ts[i-1] > int64(200*time.Millisecond) {
					f.Stalls++
					stalled = true
				}
			}
			if stalled {
				f.StalledExchanges++
			}
			if u, ok := usage[ex]; ok {
				f.TokensIn += u[0]
				f.TokensOut += u[1]
				f.UsageExchanges++
				// A stream that reached the client in one write cannot
				// say how fast it came.
				if span := ts[len(ts)-1] - ts[0]; span > 0 {
					rateOut += int64(u[1])
					rateNs += span
				}
			}
		}
	}
	rank := func(vs []int64, p float64) int64 {
		s := slices.Clone(vs)
		slices.Sort(s)
		return s[int(math.Ceil(p/100*float64(len(s))))-1]
	}
	f.TTFB = map[string]int64{"n": int64(len(ttfbs)), "p50": rank(ttfbs, 50), "p90": rank(ttfbs, 90), "p99": rank(ttfbs, 99), "max": slices.Max(ttfbs)}
	f.Gap = map[string]int64{"n": int64(len(gaps)), "p50": rank(gaps, 50), "p90": rank(gaps, 90), "p99": rank(gaps, 99), "max": slices.Max(gaps)}
	f.TokensPerS = float64(rateOut) / (float64(rateNs) / 1e9)
	return f
}
