package tui

import (
	"fmt"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/tape"
)

// timelineDoc is the timeline with the side and chunk/event toggles
// applied; its lines are built when shown.
type timelineDoc struct {
	m    *model
	v    *exView
	rows []int
}

func (m *model) timelineDoc() doc {
	d := m.det
	v := d.view()
	t := &timelineDoc{m: m, v: v}
	for i, r := range v.rows {
		if r.event == d.tlEvents && (d.tlSide == "" || r.side == d.tlSide) {
			t.rows = append(t.rows, i)
		}
	}
	return t
}

func (t *timelineDoc) len() int { return len(t.rows) }

func (t *timelineDoc) line(i int) docLine {
	st := t.m.st
	r := t.v.rows[t.rows[i]]
	sideSt, side := st.upstream, "up"
	if r.side == tape.Client {
		sideSt, side = st.client, "cl"
	}
	id := fmt.Sprintf("c%d", r.idx)
	key := chunkKey(r.side, r.idx)
	if r.event {
		id = fmt.Sprintf("e%d", r.idx)
		key = evKey(r.side, r.idx)
	}
	flag := "  "
	flagged := t.v.flagged[key]
	if flagged {
		flag = "! "
	}
	dt := "-"
	if r.dt >= 0 {
		dt = "+" + units.Duration(r.dt)
	}
	var runs []run
	if flagged {
		runs = append(runs, sty(flag, st.flagged))
	} else {
		runs = append(runs, txt(flag))
	}
	runs = append(runs,
		sty(side, sideSt), txt(" "+fit(id, 6)+" "+fit(units.Duration(r.t), 9)+" "+fit(dt, 8)+" "+fit(units.Bytes(int64(r.n)), 8)+" "),
	)
	runs = append(runs, sty(fit(r.kind, 14), st.dim), txt(" "))
	if r.mark != "" {
		runs = append(runs, sty("["+r.mark+"] ", st.boundary))
	}
	preview := `"` + r.text + `"`
	switch {
	case r.text != "":
	case r.event:
		preview = t.v.events[r.side][r.idx].Data
	case r.preview != "":
		preview = r.preview
	default:
		preview = string(t.chunkData(r))
	}
	base := txt("")
	if flagged {
		base = sty("", st.flagged)
	}
	// A row shows what fits the screen: the preview is cut to it before
	// its runs are made, where a character starts.
	preview = drawnHead(preview, t.m.w)
	runs = append(runs, visibleRuns(preview, base, st.marker, true)...)
	dl := newLine(runs...)
	dl.row = t.rows[i]
	p := inspect.Pointer{Ex: t.v.x.Ex, Side: r.side, Event: -1, Chunk: r.chunk, T: r.t}
	if r.event {
		p.Event = r.idx
	}
	dl.ptr = &p
	return dl
}

func (t *timelineDoc) chunkData(r tlRow) []byte {
	if chunks := t.v.chunks[r.side]; r.idx < len(chunks) {
		return chunks[r.idx].Data
	}
	return nil
}
