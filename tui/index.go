package tui

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// span is a byte range of a capture file holding one or more whole lines.
type span struct {
	off int64
	n   int64
}

// exSummary is what the index knows about one exchange from a byte scan of
// its lines, without decoding chunk data. The list paints it.
type exSummary struct {
	file    int // index of the capture in the model's captures
	ex      int
	reqT    int64
	method  string
	url     string
	model   string
	status  int
	outcome tape.Outcome
	// firstT is the time of the first chunk of the side clients received
	// (client when recorded, else upstream); -1 before any chunk.
	firstT int64
	// endT is the end time of that side; -1 before its end line.
	endT, upEndT int64
	upStatus     int
	upOutcome    tape.Outcome
	clientSeen   bool
	// lines lists the exchange's lines in file order, merged into spans
	// where they are adjacent.
	lines []span
	// rev increases whenever a line is added.
	rev int
	// published is how many spans copies of this summary handed to the
	// model hold; those spans are never changed again, so a copy can be
	// read while the indexer appends.
	published int
}

// ttfb returns the time to first byte of the summary, or -1.
func (s *exSummary) ttfb() int64 {
	if s.firstT < 0 {
		return -1
	}
	return s.firstT - s.reqT
}

// dur returns the duration until the end line, or -1.
func (s *exSummary) dur() int64 {
	if s.endT < 0 {
		return -1
	}
	return s.endT - s.reqT
}

// indexer builds an index of a capture file by scanning its bytes once. It
// finds the exchange and kind of every line from the line's first bytes, as
// the tape encoder writes them, and falls back to gjson for any other field
// order. An indexer is used by one scan command at a time.
type indexer struct {
	name   string
	file   int
	header *tape.Header
	hdr    span
	// scanned is the offset just past the last complete line indexed.
	scanned int64
	line    int
	byEx    map[int]*exSummary
	order   []*exSummary
	// warnings lists lines that could not be indexed.
	warnings []string
	// refused is why the file is not a capture this seam reads (its first
	// line is not a capture header, or one of a version it refuses); once
	// set nothing more of the file is indexed.
	refused error
	// buf is the read buffer, reused from step to step.
	buf []byte
}

func newIndexer(name string, file int) *indexer {
	return &indexer{name: name, file: file, byEx: map[int]*exSummary{}}
}

// scanStep is how many bytes one scan command reads, so a large capture
// shows its first exchanges at once while the rest are indexed, in bounded
// memory.
const scanStep = 8 << 20

// scan reads complete lines of r from the indexer's offset up to at most
// max bytes further, indexes them and returns the summaries that changed and
// whether bytes remain beyond what was read. r must hold at least size
// bytes.
func (ix *indexer) scan(r io.ReaderAt, size int64, max int64) (changed []exSummary, more bool, err error) {
	if size <= ix.scanned || ix.refused != nil {
		return nil, false, nil
	}
	n := min(size-ix.scanned, max)
	if int64(cap(ix.buf)) < n {
		ix.buf = make([]byte, n)
	}
	buf := ix.buf[:n]
	got, err := r.ReadAt(buf, ix.scanned)
	if err != nil && err != io.EOF {
		return nil, false, fmt.Errorf("read %s: %w", ix.name, err)
	}
	buf = buf[:got]
	end := bytes.LastIndexByte(buf, '\n')
	if end < 0 {
		if int64(got) == max && max < size-ix.scanned {
			// A line longer than one step: read it whole, then release
			// the big buffer.
			defer func() { ix.buf = nil }()
			return ix.scan(r, size, max*2)
		}
		return nil, false, nil
	}
	buf = buf[:end+1]
	touched := map[*exSummary]bool{}
	base := ix.scanned
	for pos := 0; pos < len(buf); {
		nl := bytes.IndexByte(buf[pos:], '\n')
		line := buf[pos : pos+nl]
		off := base + int64(pos)
		pos += nl + 1
		ix.line++
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if s := ix.add(line, off); s != nil {
			touched[s] = true
		}
		if ix.refused != nil {
			break
		}
	}
	ix.scanned = base + int64(len(buf))
	for _, s := range ix.order {
		if touched[s] {
			s.rev++
			s.published = len(s.lines)
			changed = append(changed, *s)
		}
	}
	return changed, ix.scanned < size, nil
}

// add indexes one line found at off and returns the exchange it belongs to.
func (ix *indexer) add(line []byte, off int64) *exSummary {
	kind, ex, rest, ok := linePrefix(line)
	if !ok {
		kind = gjson.GetBytes(line, "type").String()
		ex = int(gjson.GetBytes(line, "ex").Int())
		rest = line
	}
	if ix.header == nil {
		// The first line must be a header this seam reads; otherwise none
		// of the file is listed.
		h, err := captures.DecodeHeader(line, ix.name)
		if err != nil {
			ix.refused = err
			return nil
		}
		ix.header = h
		ix.hdr = span{off, int64(len(line))}
		return nil
	}
	if kind == "capture" {
		ix.warnings = append(ix.warnings, fmt.Sprintf("line %d: a second capture header, ignored", ix.line))
		return nil
	}
	if ex < 1 {
		if kind != "note" {
			ix.warnings = append(ix.warnings, fmt.Sprintf("line %d: no exchange number", ix.line))
		}
		return nil
	}
	s := ix.summary(ex, off, int64(len(line)))
	s.note(kind, line, rest)
	return s
}

// summary returns exchange ex's summary, made when this is its first line,
// with the line (ln bytes at off) counted among its lines.
func (ix *indexer) summary(ex int, off, ln int64) *exSummary {
	s := ix.byEx[ex]
	if s == nil {
		s = &exSummary{file: ix.file, ex: ex, firstT: -1, endT: -1, upEndT: -1}
		ix.byEx[ex] = s
		ix.order = append(ix.order, s)
	}
	if k := len(s.lines); k > s.published && s.lines[k-1].off+s.lines[k-1].n+1 == off {
		s.lines[k-1].n += ln + 1
	} else {
		s.lines = append(s.lines, span{off, ln})
	}
	return s
}

// note reads what the list shows out of one of the exchange's lines (its
// kind, and rest after the line's prefix).
func (s *exSummary) note(kind string, line, rest []byte) {
	switch kind {
	case "chunk":
		side, t := chunkSideT(rest)
		if side == tape.Upstream {
			if ct, ok := mirroredT(line); ok {
				// The upstream's chunk as the client got it too
				// (passthrough writes one line for both sides).
				side, t = tape.Client, ct
			}
		}
		switch side {
		case tape.Client:
			s.clientSeen = true
			if s.firstT < 0 {
				s.firstT = t
			}
		case tape.Upstream:
			if !s.clientSeen && s.firstT < 0 {
				s.firstT = t
			}
		}
	case "request":
		r := gjson.GetManyBytes(line, "t", "method", "url", "body", "side", "host")
		if r[4].String() != "" {
			break // a sandwich's upstream request: the list shows the client's
		}
		// A forward-proxy recording names each request's host.
		s.reqT, s.method, s.url = r[0].Int(), clean(r[1].String()), clean(r[5].String()+r[2].String())
		if body := r[3].String(); body != "" {
			s.model = clean(gjson.Get(body, "model").String())
		}
	case "response":
		r := gjson.GetManyBytes(line, "side", "status")
		if tape.Side(r[0].String()) == tape.Client {
			s.clientSeen = true
			s.status = int(r[1].Int())
		} else {
			s.upStatus = int(r[1].Int())
		}
	case "end":
		r := gjson.GetManyBytes(line, "side", "t", "outcome")
		if tape.Side(r[0].String()) == tape.Client {
			s.clientSeen = true
			s.endT, s.outcome = r[1].Int(), tape.Outcome(clean(r[2].String()))
		} else {
			s.upEndT, s.upOutcome = r[1].Int(), tape.Outcome(clean(r[2].String()))
		}
	}
	if !s.clientSeen || s.upStatus == http.StatusSwitchingProtocols {
		// Only the upstream side so far, or a WebSocket, whose sides are
		// the two directions of one session: show the server's, which
		// says how the session ended.
		s.status, s.outcome, s.endT = s.upStatus, s.upOutcome, s.upEndT
	}
}

// linePrefix reads `{"type":"K","ex":N,` from the start of a line written by
// the tape encoder and returns the kind, the exchange and the rest of the
// line. ok is false for any other layout.
func linePrefix(line []byte) (kind string, ex int, rest []byte, ok bool) {
	const p = `{"type":"`
	if !bytes.HasPrefix(line, []byte(p)) {
		return "", 0, nil, false
	}
	b := line[len(p):]
	q := bytes.IndexByte(b, '"')
	if q < 0 {
		return "", 0, nil, false
	}
	kind = kindName(b[:q])
	b = b[q+1:]
	if kind == "capture" {
		return kind, 0, b, true
	}
	const e = `,"ex":`
	if !bytes.HasPrefix(b, []byte(e)) {
		return "", 0, nil, false
	}
	b = b[len(e):]
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	n, err := strconv.Atoi(string(b[:i]))
	if err != nil {
		return "", 0, nil, false
	}
	return kind, n, b[i:], true
}

// kindName returns the line kind without allocating for the known kinds.
func kindName(b []byte) string {
	switch string(b) {
	case "chunk":
		return "chunk"
	case "request":
		return "request"
	case "response":
		return "response"
	case "end":
		return "end"
	case "note":
		return "note"
	case "capture":
		return "capture"
	}
	return string(b)
}

// mirroredT reads the time the client got a mirrored upstream chunk: the
// first number of the `,"client":[T,OFF]` the encoder writes last on the
// line. Only the line's tail is read (a chunk line can be megabytes; the
// indexer reads each once).
func mirroredT(line []byte) (int64, bool) {
	const p = `,"client":[`
	line = bytes.TrimRight(line, "\n")
	if !bytes.HasSuffix(line, []byte("]}")) {
		return 0, false
	}
	tail := line[max(0, len(line)-64):]
	i := bytes.LastIndex(tail, []byte(p))
	if i < 0 {
		return 0, false
	}
	b := tail[i+len(p):]
	j := bytes.IndexByte(b, ',')
	if j < 0 {
		return 0, false
	}
	if _, err := strconv.ParseInt(string(bytes.TrimSuffix(b[j+1:], []byte("]}"))), 10, 64); err != nil {
		return 0, false // not the line's own member: the line goes on after it
	}
	n, err := strconv.ParseInt(string(b[:j]), 10, 64)
	return n, err == nil
}

// chunkSideT reads the side and t of a chunk line from the text after its
// exchange number (`,"side":"S","t":N,...`), falling back to gjson.
func chunkSideT(rest []byte) (tape.Side, int64) {
	const p = `,"side":"`
	if bytes.HasPrefix(rest, []byte(p)) {
		b := rest[len(p):]
		var side tape.Side
		switch {
		case bytes.HasPrefix(b, []byte(`upstream"`)):
			side, b = tape.Upstream, b[len(`upstream"`):]
		case bytes.HasPrefix(b, []byte(`client"`)):
			side, b = tape.Client, b[len(`client"`):]
		}
		const t = `,"t":`
		if side != "" && bytes.HasPrefix(b, []byte(t)) {
			b = b[len(t):]
			i := 0
			for i < len(b) && (b[i] >= '0' && b[i] <= '9' || b[i] == '-') {
				i++
			}
			if n, err := strconv.ParseInt(string(b[:i]), 10, 64); err == nil {
				return side, n
			}
		}
	}
	r := gjson.GetManyBytes(rest, "side", "t")
	return tape.Side(r[0].String()), r[1].Int()
}

// loadExchange reads the lines of one exchange (and the capture header) from
// r and decodes them with the tape decoder.
func loadExchange(r io.ReaderAt, name string, hdr span, lines []span) (*tape.Capture, error) {
	total := hdr.n + 1
	for _, s := range lines {
		total += s.n + 1
	}
	buf := make([]byte, 0, total)
	read := func(s span) error {
		start := len(buf)
		buf = buf[:start+int(s.n)]
		if _, err := r.ReadAt(buf[start:], s.off); err != nil && err != io.EOF {
			return fmt.Errorf("read %s at %d: %w", name, s.off, err)
		}
		buf = append(buf, '\n')
		return nil
	}
	if err := read(hdr); err != nil {
		return nil, err
	}
	for _, s := range lines {
		if err := read(s); err != nil {
			return nil, err
		}
	}
	c, err := tape.Read(bytes.NewReader(buf), name)
	if err != nil {
		return nil, fmt.Errorf("decode exchange: %w", err)
	}
	// The lines were read out of the file: their numbers in buf are not the
	// file's, so anomalies cite no line here.
	for _, x := range c.Exchanges {
		for i := range x.Anomalies {
			x.Anomalies[i].Line = 0
		}
	}
	return c, nil
}
