package inspect

import (
	"fmt"
	"io"

	"github.com/seam-dev/seam/internal/jsontext"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/request"
	"github.com/seam-dev/seam/session"
	"github.com/seam-dev/seam/tape"
	"github.com/seam-dev/seam/visible"
)

// Inspector inspects the exchanges of one capture one at a time, in the
// order they are given, for a capture read exchange by exchange (a
// [tape.ExchangeReader]): it keeps nothing of an exchange once reported
// but what the next one's detectors compare with (its request and how it
// ended).
type Inspector struct {
	// Workers is how many exchanges Run inspects at once; 0 means
	// runtime.GOMAXPROCS(0).
	Workers int

	c    *tape.Capture // the name and header; Exchanges is not used
	opts Options
	prev *exCtx
	// own is set when the Inspector links sessions itself.
	own bool
}

// NewInspector returns an Inspector for the capture named name with header
// h. opts.Ex is not applied: the caller chooses the exchanges it passes.
// It links the exchanges into sessions with opts.Sessions, or, as Inspect
// does, with a Sessions of its own when that is nil.
func NewInspector(name string, h tape.Header, opts Options) *Inspector {
	in := &Inspector{c: &tape.Capture{Name: name, Header: h}, opts: opts}
	if opts.Sessions == nil {
		in.opts.Sessions, in.own = session.NewLinker(), true
	}
	if opts.Requests == nil {
		in.opts.Requests = new(request.Reader)
	}
	return in
}

// Sessions returns the sessions the exchanges inspected so far form, as
// Inspect reports them, when the Inspector links them itself; nil when
// they are linked by the caller's Options.Sessions.
func (in *Inspector) Sessions() []*session.Session {
	if !in.own {
		return nil
	}
	return in.opts.Sessions.List()
}

// Exchange inspects x, the next exchange of the capture.
func (in *Inspector) Exchange(x *tape.Exchange) *ExchangeReport {
	return in.settle(in.prepare(x, PickReport))
}

// Skim reads x for what the exchanges after it compare with (its place in
// its session, its request, how it ended) without a report on it: its
// sides are parsed and assembled, nothing more. Skim the exchanges before
// the one to report, so its session and retry detectors see them.
func (in *Inspector) Skim(x *tape.Exchange) {
	in.settle(in.prepare(x, PickSkim))
}

// prepare does the work on x that reads x alone (prepareExchange): in
// full for PickReport, assembly only for PickSkim. Safe for concurrent
// use.
func (in *Inspector) prepare(x *tape.Exchange, p Pick) *exCtx {
	o := in.opts
	if p == PickSkim {
		o.AssembleOnly, o.NoDiffs = true, true
	}
	ctx := prepareExchange(in.c, x, o)
	if x.Continued && p == PickReport {
		ctx.rep.Notes = append(ctx.rep.Notes, fmt.Sprintf("lines of exchange %d that came after it was complete, read on their own", x.Ex))
	}
	return ctx
}

// settle finishes ctx, prepared, as the exchange after the ones settled
// before (exCtx.settle), and returns its report.
func (in *Inspector) settle(ctx *exCtx) *ExchangeReport {
	ctx.settle(in.prev)
	in.prev = ctx.summary()
	return ctx.rep
}

// summary keeps of an inspected exchange what the next exchange's
// detectors compare with: its request, and the status, outcome and error
// of the side clients received.
func (c *exCtx) summary() *exCtx {
	s := &exCtx{x: &tape.Exchange{Ex: c.x.Ex, Request: c.x.Request}}
	if v := c.view; v != nil {
		s.view = &SideReport{Side: v.Side, Status: v.Status, Outcome: v.Outcome, Message: &protocol.Message{Error: v.Message.Error}}
	}
	return s
}

// JSONWriter writes the report [WriteJSON] writes, byte for byte, one
// exchange at a time, so a report on a large capture is never held whole.
type JSONWriter struct {
	w        io.Writer
	capture  string
	n        int
	err      error
	sessions []*session.Session
}

// SetSessions gives the sessions Close writes after the warnings, as
// WriteJSON writes Report.Sessions.
func (j *JSONWriter) SetSessions(ss []*session.Session) { j.sessions = ss }

// NewJSONWriter returns a JSONWriter for the capture named capture.
func NewJSONWriter(w io.Writer, capture string) *JSONWriter {
	return &JSONWriter{w: w, capture: capture}
}

// Exchange writes one exchange report.
func (j *JSONWriter) Exchange(x *ExchangeReport) error {
	if j.n == 0 {
		j.head()
		j.write([]byte("\n"))
	} else {
		j.write([]byte(",\n"))
	}
	j.n++
	b, err := marshalIndent(x, "    ")
	if err != nil {
		return err
	}
	j.write([]byte("    "))
	j.write(b)
	return j.err
}

// Close ends the document with the capture's warnings.
func (j *JSONWriter) Close(warnings []string) error {
	if j.n == 0 {
		j.head()
		j.write([]byte("]"))
	} else {
		j.write([]byte("\n  ]"))
	}
	if len(warnings) > 0 {
		b, err := marshalIndent(warnings, "  ")
		if err != nil {
			return err
		}
		j.write([]byte(",\n  \"warnings\": "))
		j.write(b)
	}
	if len(j.sessions) > 0 {
		b, err := marshalIndent(j.sessions, "  ")
		if err != nil {
			return err
		}
		j.write([]byte(",\n  \"sessions\": "))
		j.write(b)
	}
	j.write([]byte("\n}\n"))
	return j.err
}

func (j *JSONWriter) head() {
	name, _ := marshalIndent(j.capture, "  ")
	j.write([]byte(fmt.Sprintf("{\n  \"schema\": %d,\n  \"capture\": %s,\n  \"exchanges\": [", SchemaVersion, name)))
}

// write writes b with the characters a terminal would act on written as
// \u escapes (visible.JSON): they can only stand inside JSON strings.
func (j *JSONWriter) write(b []byte) {
	if j.err == nil {
		_, j.err = j.w.Write(visible.JSON(b))
		if j.err != nil {
			j.err = fmt.Errorf("write report: %w", j.err)
		}
	}
}

// marshalIndent encodes v as WriteJSON's encoder does, at the given prefix:
// as a json.Encoder with SetEscapeHTML(false) and SetIndent(prefix, "  ")
// does, without the trailing newline.
func marshalIndent(v any, prefix string) ([]byte, error) {
	b, err := jsontext.EncodeIndent(v, prefix, "  ")
	if err != nil {
		return nil, fmt.Errorf("encode report: %w", err)
	}
	return b, nil
}

// WriteJSON writes r as one indented JSON document (schema in doc.go),
// with the characters a terminal would act on written as \u escapes
// (visible.JSON).
func WriteJSON(w io.Writer, r *Report) error {
	jw := NewJSONWriter(w, r.Capture)
	jw.SetSessions(r.Sessions)
	for _, x := range r.Exchanges {
		if err := jw.Exchange(x); err != nil {
			return err
		}
	}
	return jw.Close(r.Warnings)
}
