package tui

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/shape"
	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// tlRow is one row of the timeline: a chunk or an event of one side.
type tlRow struct {
	side  tape.Side
	event bool
	idx   int // chunk or event index in its side
	chunk int // the chunk (for events, the one holding the first byte)
	t, dt int64
	n     int
	kind  string // event type, or "" for a chunk
	text  string // the delta text, when the event carries one
	mark  string // tool-call and XML-block boundaries
	// preview, when set, is shown in place of a chunk's bytes: the
	// decoded message a WebSocket frame completes.
	preview string
}

// exView is everything the detail screen paints for one exchange, built in a
// command from the decoded exchange and inspect's report.
type exView struct {
	x   *tape.Exchange
	rep *inspect.ExchangeReport
	// req is the request, parsed for the Request tab.
	req *reqView
	// text is the assembled text the Diff tab shows under the diffs.
	text *assembled
	// events are inspect's events of each side, so a finding's pointer
	// indexes them.
	events map[tape.Side][]protocol.Event
	// chunks are each side's chunks as inspect read them: decoded when
	// the body is compressed, so event offsets index them; encoding is the
	// side's Content-Encoding.
	chunks   map[tape.Side][]tape.Chunk
	encoding map[tape.Side]string
	rows     []tlRow
	// flagged maps "side/event" and "side#chunk" keys of the rows findings
	// point at.
	flagged map[string]bool
}

func evKey(s tape.Side, ev int) string   { return fmt.Sprintf("%s/%d", s, ev) }
func chunkKey(s tape.Side, c int) string { return fmt.Sprintf("%s#%d", s, c) }

// buildView inspects x and prepares its timeline; live says the capture
// is still being recorded (inspect.Options.Live).
func buildView(c *tape.Capture, x *tape.Exchange, live bool) *exView {
	one := &tape.Capture{Name: c.Name, Header: c.Header, Exchanges: []*tape.Exchange{x}}
	rep := inspect.Inspect(one, inspect.Options{Ex: x.Ex, Live: live})
	v := &exView{x: x, req: parseRequest(x), events: map[tape.Side][]protocol.Event{}, flagged: map[string]bool{},
		chunks: map[tape.Side][]tape.Chunk{}, encoding: map[tape.Side]string{}}
	if len(rep.Exchanges) > 0 {
		v.rep = rep.Exchanges[0]
	} else {
		v.rep = &inspect.ExchangeReport{Ex: x.Ex}
	}
	v.text = assembleText(v.rep)
	sides := map[tape.Side]*inspect.SideReport{}
	for _, sr := range v.rep.Sides {
		sides[sr.Side] = sr
	}
	for _, s := range []tape.Side{tape.Upstream, tape.Client} {
		chunks := x.Side(s).Chunks
		if sr := sides[s]; sr != nil {
			if c := sr.ChunkList(); len(c) == len(chunks) {
				chunks = c
			}
			v.encoding[s] = sr.Encoding
		}
		v.chunks[s] = chunks
		evs := sides[s].EventList()
		v.events[s] = evs
		evRows := eventRows(s, evs)
		v.rows = append(v.rows, chunkRows(s, chunks, evs, evRows)...)
		v.rows = append(v.rows, evRows...)
	}
	// Interleave by time; on a tie upstream first, then a chunk before the
	// events it completed.
	sort.SliceStable(v.rows, func(i, j int) bool {
		a, b := v.rows[i], v.rows[j]
		if a.t != b.t {
			return a.t < b.t
		}
		if a.side != b.side {
			return a.side == tape.Upstream
		}
		return !a.event && b.event
	})
	v.wsPreviews()
	v.flag()
	return v
}

// eventRows are the timeline rows of side s's events, each with the time
// since the one before.
func eventRows(s tape.Side, evs []protocol.Event) []tlRow {
	var evRows []tlRow
	var prev int64 = -1
	for i, e := range evs {
		r := tlRow{side: s, event: true, idx: i, chunk: e.Chunk, t: e.T, n: int(e.End - e.Off), dt: -1}
		if prev >= 0 {
			r.dt = e.T - prev
		}
		prev = e.T
		r.kind, r.text, r.mark = describeEvent(e)
		if !e.Terminated {
			r.mark = strings.TrimSpace(r.mark + " unterminated")
		}
		evRows = append(evRows, r)
	}
	return evRows
}

// chunkRows are the timeline rows of side s's chunks: a chunk row names
// the events it completed (evs, drawn as evRows) and the text they add.
func chunkRows(s tape.Side, chunks []tape.Chunk, evs []protocol.Event, evRows []tlRow) []tlRow {
	var rows []tlRow
	var prev int64 = -1
	next := 0
	for i, ch := range chunks {
		r := tlRow{side: s, idx: i, chunk: i, t: ch.T, n: len(ch.Data), dt: -1}
		if prev >= 0 {
			r.dt = ch.T - prev
		}
		prev = ch.T
		var kinds, marks []string
		var text strings.Builder
		for ; next < len(evs) && evs[next].EndChunk == i; next++ {
			er := evRows[next]
			kinds = append(kinds, er.kind)
			text.WriteString(er.text)
			if er.mark != "" {
				marks = append(marks, er.mark)
			}
		}
		switch len(kinds) {
		case 0:
			r.kind = "(partial)"
		case 1:
			r.kind = kinds[0]
		default:
			r.kind = fmt.Sprintf("%s +%d", kinds[0], len(kinds)-1)
		}
		r.text = text.String()
		r.mark = strings.Join(marks, " ")
		if r.mark == "" {
			r.mark = xmlMark(string(ch.Data))
		}
		rows = append(rows, r)
	}
	return rows
}

// flag marks the events and chunks findings point at.
func (v *exView) flag() {
	for _, f := range v.rep.Findings {
		p := f.Pointer
		if p.Side == "" {
			continue
		}
		if p.Event >= 0 {
			v.flagged[evKey(p.Side, p.Event)] = true
		}
		if p.Chunk >= 0 {
			v.flagged[chunkKey(p.Side, p.Chunk)] = true
		}
	}
}

// describeEvent names an event, extracts the text it adds and marks
// tool-call and XML-block boundaries.
func describeEvent(e protocol.Event) (kind, text, mark string) {
	kind = e.Name
	d := e.Data
	if strings.TrimSpace(d) == "[DONE]" {
		return cmp.Or(kind, "[DONE]"), "", "done"
	}
	if !gjson.Valid(d) {
		return cmp.Or(kind, "data"), "", ""
	}
	j := gjson.Parse(d)
	var marks []string
	switch {
	case j.Get("choices").IsArray(): // Chat Completions
		ch := j.Get("choices.0")
		delta := ch.Get("delta")
		switch {
		case delta.Get("tool_calls").Exists():
			tc := delta.Get("tool_calls.0")
			kind = cmp.Or(kind, "tool_calls")
			if name := tc.Get("function.name").String(); name != "" || tc.Get("id").String() != "" {
				marks = append(marks, "tool▶ "+name)
			}
			text = tc.Get("function.arguments").String()
		case delta.Get("content").Exists() && delta.Get("content").Type == gjson.String:
			text = delta.Get("content").String()
			kind = cmp.Or(kind, "content")
			if delta.Get("role").Exists() {
				kind = "role+content"
			}
		case delta.Get("reasoning_content").Exists():
			kind, text = cmp.Or(kind, "reasoning"), delta.Get("reasoning_content").String()
		case delta.Get("role").Exists():
			kind = cmp.Or(kind, "role")
		}
		if fr := ch.Get("finish_reason").String(); fr != "" {
			kind = cmp.Or(e.Name, "finish")
			marks = append(marks, "finish:"+fr)
			if fr == "tool_calls" {
				marks = append(marks, "◀tool")
			}
		}
		if j.Get("usage").IsObject() && kind == "" {
			kind = "usage"
		}
		kind = cmp.Or(kind, "chunk")
	case j.Get("type").Exists():
		typ := j.Get("type").String()
		kind = cmp.Or(kind, typ)
		switch typ {
		case "content_block_start":
			if j.Get("content_block.type").String() == "tool_use" {
				marks = append(marks, "tool▶ "+j.Get("content_block.name").String())
			}
		case "content_block_delta":
			text = cmp.Or(j.Get("delta.text").String(), j.Get("delta.partial_json").String(), j.Get("delta.thinking").String())
		case "response.output_item.added":
			if j.Get("item.type").String() == "function_call" {
				marks = append(marks, "tool▶ "+j.Get("item.name").String())
			}
		case "response.output_item.done":
			if j.Get("item.type").String() == "function_call" {
				marks = append(marks, "◀tool")
			}
		default:
			if dl := j.Get("delta"); dl.Type == gjson.String {
				text = dl.String()
			}
		}
	}
	if m := xmlMark(text); m != "" {
		marks = append(marks, m)
	}
	return clean(kind), text, clean(strings.Join(marks, " "))
}

// xmlMark marks the opening and closing of Obsidian <use_tool> blocks in a
// piece of text (or of raw chunk bytes).
func xmlMark(s string) string {
	var m []string
	if strings.Contains(s, "<use_tool") || strings.Contains(s, `\u003cuse_tool`) {
		m = append(m, "xml▶")
	}
	if strings.Contains(s, "</use_tool") || strings.Contains(s, `\u003c/use_tool`) {
		m = append(m, "◀xml")
	}
	return strings.Join(m, " ")
}

// replayed is the exchange replayed through a changed engine.
type replayed struct {
	view *exView
	// cmp compares the recorded client with the replayed one.
	cmp  *inspect.Diff
	desc string
}

// replayExchange replays x through eng, inspects the result and compares it
// with the recording. It runs in a command.
func replayExchange(ctx context.Context, c *tape.Capture, x *tape.Exchange, rec *exView, eng tape.Engine) (*replayed, error) {
	res, err := replay.Exchange(ctx, x, eng, replay.Options{})
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	rx := res.ToExchange(x)
	h := c.Header
	h.Engine = eng
	v := buildView(&tape.Capture{Name: c.Name, Header: h}, rx, false)
	d := inspect.DiffExchangeReports(rec.rep, v.rep)
	d.A, d.B = "recorded client", "replayed client"
	return &replayed{view: v, cmp: d, desc: replayOutcome(res)}, nil
}

// replayOutcome says in a few words how the replayed frames compare with
// the recorded client chunks; the bytes themselves are in the diff.
func replayOutcome(res *replay.Result) string {
	switch {
	case res.NoClient:
		return fmt.Sprintf("no client side recorded to compare with (%d frames)", len(res.Frames))
	case res.Identical():
		return fmt.Sprintf("identical to the recording (%d frames)", len(res.Frames))
	case bytes.Equal(res.Body(), (&tape.SideData{Chunks: res.Recorded}).Body()):
		return fmt.Sprintf("same bytes, other boundaries from frame %d", res.Mismatch)
	}
	return fmt.Sprintf("differs at frame %d", res.Mismatch)
}

// resolveEngine returns the full switch map of a recorded engine, falling
// back to the profile defaults when the header's switches do not resolve.
func resolveEngine(e tape.Engine) tape.Engine {
	r, err := shape.Resolve(e.Profile, e.Switches)
	if err != nil {
		if r, err = shape.Resolve(e.Profile, nil); err != nil {
			r, _ = shape.Resolve("", nil)
		}
	}
	return r
}

// engineDelta lists the switches of e that differ from base, as k=v.
func engineDelta(base, e tape.Engine) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(e.Switches)) {
		if base.Switches[k] != e.Switches[k] {
			out = append(out, k+"="+e.Switches[k])
		}
	}
	return strings.Join(out, " ")
}
