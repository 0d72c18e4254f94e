package replay

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seam-dev/seam/shape"
	"github.com/seam-dev/seam/tape"
)

// Options configures an offline replay.
type Options struct {
	// Speed paces the pushes by the recorded chunk times: 1 is the original
	// timing, N is N times faster, 0 (the default) does not wait at all.
	Speed float64
	// Faults are applied to the recorded upstream side before it goes
	// through the engine, as a mock upstream would send it (see
	// ServerOptions.Faults): timing faults shift the chunks' times, a
	// disconnect cuts the chunks after it and ends the side with an
	// upstream error, a status fault replaces the response with the error.
	Faults []Fault
	// Seed seeds the positions faults pick, as ServerOptions.Seed does:
	// the same seed makes the same bytes offline and served.
	Seed uint64
}

// Frame is one client write produced by the engine during a replay.
type Frame struct {
	// Source is the index of the upstream chunk whose push produced the
	// frame, or -1 for frames produced when the upstream ended.
	Source int
	// T is the recorded time of that upstream chunk (or of the upstream end).
	T    int64
	Data []byte
}

// Result is the outcome of replaying one exchange.
type Result struct {
	Ex     int
	Engine tape.Engine
	Frames []Frame
	// Recorded is the client side as recorded.
	Recorded []tape.Chunk
	// Mismatch is the index of the first frame that differs from the recorded
	// client chunk at the same index, or -1 when every frame and boundary is
	// identical.
	Mismatch int
	// NoClient is set when the capture holds no client side (an imported
	// upstream recording): there is nothing to compare the frames with.
	NoClient bool
	// Upstream is the upstream side the engine was given when faults
	// changed it, nil otherwise.
	Upstream *tape.SideData
}

// Identical reports whether the replay produced the recorded client side
// chunk for chunk: the same bytes and the same boundaries.
func (r *Result) Identical() bool { return r.Mismatch < 0 }

// Body returns the produced client bytes joined.
func (r *Result) Body() []byte {
	var b []byte
	for _, f := range r.Frames {
		b = append(b, f.Data...)
	}
	return b
}

// Describe says in one line how the replay compares with the recording.
func (r *Result) Describe() string {
	if r.NoClient {
		return fmt.Sprintf("no client side was recorded to compare with; the engine produced %d frames, %d bytes", len(r.Frames), len(r.Body()))
	}
	if r.Identical() {
		return fmt.Sprintf("identical: %d frames, %d bytes", len(r.Frames), len(r.Body()))
	}
	i := r.Mismatch
	var got, want []byte
	if i < len(r.Frames) {
		got = r.Frames[i].Data
	}
	if i < len(r.Recorded) {
		want = r.Recorded[i].Data
	}
	switch {
	case got == nil:
		return fmt.Sprintf("differs at frame %d: the replay ends after %d frames, the recording has %d", i, len(r.Frames), len(r.Recorded))
	case want == nil:
		return fmt.Sprintf("differs at frame %d: the replay has %d frames, the recording ends after %d", i, len(r.Frames), len(r.Recorded))
	case bytes.Equal(r.Body(), (&tape.SideData{Chunks: r.Recorded}).Body()):
		return fmt.Sprintf("same bytes, other boundaries: frame %d is %d bytes, recorded %d", i, len(got), len(want))
	}
	k := commonPrefix(got, want)
	body := int64(0)
	for _, f := range r.Frames[:i] {
		body += int64(len(f.Data))
	}
	g, w := around(got, k), around(want, k)
	return fmt.Sprintf("differs at frame %d, byte %d of the frame (byte %d of the body):\n  replayed %s\n  recorded %s", i, k, body+int64(k), g, w)
}

// Context shown around the first differing byte of a frame.
const (
	contextBefore = 32
	contextAfter  = 48
)

// commonPrefix returns how many leading bytes a and b share.
func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// around quotes b from a little before byte k to a little after it, with
// an ellipsis where it is cut, so that control characters and bytes that
// are not UTF-8 show as escapes.
func around(b []byte, k int) string {
	from, to := max(0, k-contextBefore), min(len(b), k+contextAfter)
	for from > 0 && !utf8.RuneStart(b[from]) {
		from--
	}
	for to < len(b) && !utf8.RuneStart(b[to]) {
		to++
	}
	s := strconv.Quote(string(b[from:to]))
	if from > 0 {
		s = "…" + s
	}
	if to < len(b) {
		s += "…"
	}
	return s
}

// Exchange replays the upstream side of x through the engine cfg describes,
// pushing the recorded chunks with their recorded boundaries, and compares
// the frames produced with the recorded client side.
func Exchange(ctx context.Context, x *tape.Exchange, cfg tape.Engine, opts Options) (*Result, error) {
	if x.Upstream.Response == nil {
		return nil, fmt.Errorf("exchange %d: no upstream response was recorded", x.Ex)
	}
	up := x.Upstream
	res := &Result{Ex: x.Ex, Engine: cfg, Recorded: x.Client.Chunks,
		NoClient: x.Client.Response == nil && len(x.Client.Chunks) == 0}
	if len(opts.Faults) > 0 {
		up = faultedUpstream(x, opts.Faults, opts.Seed)
		res.Upstream = &up
	}
	path := ""
	method := ""
	if x.Request != nil {
		method = x.Request.Method
		path, _, _ = strings.Cut(x.Request.URL, "?")
	}
	ct := ""
	if v := up.Response.Headers["content-type"]; len(v) > 0 {
		ct = v[0]
	}
	eng, err := shape.New(cfg, shape.Exchange{Method: method, Path: path, Status: up.Response.Status, ContentType: ct})
	if err != nil {
		return nil, fmt.Errorf("exchange %d: engine: %w", x.Ex, err)
	}
	p := pacer{start: time.Now(), speed: opts.Speed}
	if len(up.Chunks) > 0 {
		p.zero = up.Chunks[0].T
	}
	defer p.stop()
	var frames [][]byte
	for i, c := range up.Chunks {
		if !p.wait(ctx, c.T, 0) {
			return nil, ctx.Err()
		}
		frames = eng.Push(frames[:0], c.Data)
		res.add(frames, i, c.T)
	}
	endT := int64(0)
	if up.End != nil {
		endT = up.End.T
	}
	frames = eng.Close(frames[:0])
	res.add(frames, -1, endT)
	res.Mismatch = firstMismatch(res.Frames, res.Recorded)
	return res, nil
}

func (r *Result) add(frames [][]byte, src int, t int64) {
	for _, f := range frames {
		r.Frames = append(r.Frames, Frame{Source: src, T: t, Data: bytes.Clone(f)})
	}
}

func firstMismatch(frames []Frame, rec []tape.Chunk) int {
	for i := range max(len(frames), len(rec)) {
		if i >= len(frames) || i >= len(rec) || !bytes.Equal(frames[i].Data, rec[i].Data) {
			return i
		}
	}
	return -1
}

// ToExchange returns x with its client side replaced by the replayed frames,
// and its upstream side by the one faults made, for writing the replay as a
// capture.
func (r *Result) ToExchange(x *tape.Exchange) *tape.Exchange {
	out := *x
	if r.Upstream != nil {
		out.Upstream = *r.Upstream
		x = &out
	}
	out.Client = tape.SideData{Response: x.Client.Response}
	// What the capture said about its recorded client side no longer applies.
	out.Anomalies = nil
	for _, a := range x.Anomalies {
		if a.Side != tape.Client {
			out.Anomalies = append(out.Anomalies, a)
		}
	}
	if out.Client.Response == nil && x.Upstream.Response != nil {
		resp := *x.Upstream.Response
		resp.Side = tape.Client
		out.Client.Response = &resp
	}
	var off int64
	for _, f := range r.Frames {
		out.Client.Chunks = append(out.Client.Chunks, tape.Chunk{Ex: x.Ex, Side: tape.Client, T: f.T, Off: off, Data: f.Data})
		off += int64(len(f.Data))
	}
	if x.Upstream.End != nil {
		end := *x.Upstream.End
		end.Side, end.Bytes = tape.Client, off
		out.Client.End = &end
	}
	return &out
}

// faultedUpstream returns the upstream side of x as a mock upstream with
// faults would send it, with the seed a Server uses for x.
func faultedUpstream(x *tape.Exchange, faults []Fault, seed uint64) tape.SideData {
	up := tape.SideData{}
	resp := *x.Upstream.Response
	up.Response = &resp
	if f, ok := statusFault(faults); ok {
		body := statusFaultBody(f)
		resp.Status = f.N
		resp.Headers = tape.Headers{"content-type": {"application/json"}}
		up.Chunks = []tape.Chunk{{Ex: x.Ex, Side: tape.Upstream, T: resp.T, Data: body}}
		up.End = &tape.End{Ex: x.Ex, Side: tape.Upstream, T: resp.T, Outcome: tape.Complete, Bytes: int64(len(body))}
		return up
	}
	chunks := x.Upstream.Chunks
	// Faults apply to the decoded events of a compressed body, as a Server
	// serves it (see play): the side then holds decoded bytes.
	if dec, ok, _ := decodedBody(chunks, resp.Headers); ok {
		chunks = dec
		resp.Headers = maps.Clone(resp.Headers)
		delete(resp.Headers, "content-encoding")
	}
	pl := applyFaults(chunks, faults, rand.New(rand.NewPCG(seed, uint64(x.Ex))))
	resp.T += int64(pl.head)
	up.Chunks = pl.shifted()
	var end tape.End
	if x.Upstream.End != nil {
		end = *x.Upstream.End
	} else {
		end = tape.End{Ex: x.Ex, Side: tape.Upstream, T: resp.T, Outcome: tape.Truncated}
	}
	if n := len(pl.extra); n > 0 {
		end.T += int64(pl.extra[n-1])
	}
	for _, f := range faults {
		if f.Kind != FaultDisconnect || x.Request == nil {
			continue
		}
		cut := x.Request.T + int64(f.D)
		if resp.T > cut {
			up.Chunks = nil
		}
		for i, c := range up.Chunks {
			if c.T > cut {
				up.Chunks = up.Chunks[:i]
				break
			}
		}
		if end.T > cut {
			end.T, end.Outcome, end.Error = cut, tape.UpstreamError, errDisconnect.Error()
		}
	}
	end.Bytes = 0
	for _, c := range up.Chunks {
		end.Bytes += int64(len(c.Data))
	}
	up.End = &end
	return up
}
