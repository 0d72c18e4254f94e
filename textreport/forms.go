package textreport

import (
	"bytes"
	"fmt"
	"io"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/internal/units"
	"github.com/seam-dev/seam/session"
	"github.com/seam-dev/seam/visible"
)

// Form is the form seam inspect's report takes, as its flags choose it.
type Form struct {
	JSON   bool   // inspect's JSON document
	Client string // what this emulated client ends up with, instead of the report
	Color  bool   // ANSI colour in the text
	// One, over many captures, writes the full report of the exchanges
	// (--ex names one) instead of the summary table.
	One bool
	// Width is what the summary table fits, 0 for no limit.
	Width int
}

// StreamWriter writes the report on one capture exchange by exchange, in
// a Form: JSON, what a client ends up with, or text.
type StreamWriter struct {
	w      io.Writer
	client string
	jw     *inspect.JSONWriter
	tw     *Writer
}

// NewStreamWriter returns the writer of the report on the capture at path
// to w.
func NewStreamWriter(w io.Writer, path string, f Form) *StreamWriter {
	s := &StreamWriter{w: w, client: f.Client}
	switch {
	case f.JSON:
		s.jw = inspect.NewJSONWriter(w, path)
	case f.Client == "":
		s.tw = NewWriter(w, f.Color)
		s.tw.Capture = path
	}
	return s
}

// Exchange writes the report on one exchange, one's only one.
func (s *StreamWriter) Exchange(one *inspect.Report) error {
	switch {
	case s.jw != nil:
		return s.jw.Exchange(one.Exchanges[0])
	case s.client != "":
		return WriteClient(s.w, one, s.client)
	}
	return s.tw.Exchange(one.Exchanges[0])
}

// Close ends the report with the capture's warnings and sessions.
func (s *StreamWriter) Close(warned []error, sessions []*session.Session) error {
	var warnings []string
	for _, err := range warned {
		warnings = append(warnings, err.Error())
	}
	switch {
	case s.jw != nil:
		s.jw.SetSessions(sessions)
		return s.jw.Close(warnings)
	case s.tw != nil:
		s.tw.Warnings(warnings)
		s.tw.Sessions(sessions)
		return s.tw.Close()
	}
	return nil
}

// ManyWriter writes the report on several captures: one JSON document
// {"schema", "captures": [report], "sessions"}, what a client ends up with
// per exchange, the full report of the exchanges (Form.One), or the
// summary table with a row per exchange.
type ManyWriter struct {
	w    io.Writer
	f    Form
	rows *Table
	// jw writes the JSON report of the capture jwPath; first is set until
	// one was written.
	jw     *inspect.JSONWriter
	jwPath string
	first  bool
}

// NewManyWriter returns the writer of a report on several captures to w,
// having started the JSON document when the form is JSON.
func NewManyWriter(w io.Writer, f Form) *ManyWriter {
	if f.JSON {
		fmt.Fprintf(w, "{\n  \"schema\": %d,\n  \"captures\": [\n", inspect.SchemaVersion)
	}
	return &ManyWriter{w: w, f: f, rows: ExchangeTable(), first: true}
}

// Capture starts, in JSON, the report on the capture at path when the
// exchanges reach a new one: every capture read has its report, with or
// without exchanges selected.
func (m *ManyWriter) Capture(path string) error {
	if !m.f.JSON || path == m.jwPath {
		return nil
	}
	if err := m.EndCapture(); err != nil {
		return err
	}
	if !m.first {
		io.WriteString(m.w, ",\n")
	}
	m.first, m.jwPath = false, path
	m.jw = inspect.NewJSONWriter(m.w, path)
	return nil
}

// EndCapture ends, in JSON, the report on the capture started last.
func (m *ManyWriter) EndCapture() error {
	if m.jw == nil {
		return nil
	}
	err := m.jw.Close(nil)
	m.jw = nil
	return err
}

// Exchange writes, or adds to the table, the report on one exchange of
// the capture at path, one's only one.
func (m *ManyWriter) Exchange(path string, one *inspect.Report) error {
	switch {
	case m.jw != nil:
		return m.jw.Exchange(one.Exchanges[0])
	case m.f.Client != "":
		fmt.Fprintf(m.w, "== %s\n", visible.String(path))
		return WriteClient(m.w, one, m.f.Client)
	case m.f.One:
		return Write(m.w, one, m.f.Color)
	}
	m.rows.Add(ExchangeRow(path, one.Exchanges[0])...)
	return nil
}

// Close ends the report: the JSON document's sessions, or the summary
// table (of found exchanges among captures) and the sessions of more
// than one turn.
func (m *ManyWriter) Close(captures, found int, sessions []*session.Session) error {
	switch {
	case m.f.JSON:
		b, err := sessionsJSON(sessions)
		if err != nil {
			return err
		}
		fmt.Fprintf(m.w, "\n  ],\n  \"sessions\": %s\n}\n", b)
	case m.f.Client == "" && !m.f.One:
		fmt.Fprintf(m.w, "%s, %s\n\n", units.Count(captures, "capture"), units.Count(found, "exchange"))
		if err := m.rows.Write(m.w, m.f.Width); err != nil {
			return err
		}
		fmt.Fprintln(m.w)
		if err := WriteSessions(m.w, sessions, m.f.Color); err != nil {
			return err
		}
		fmt.Fprintln(m.w, "details of one exchange: seam inspect --ex CAPTURE#N; the same as JSON: --json")
	}
	return nil
}

// sessionsJSON encodes the sessions list at the document's second level
// of indentation, with no character that acts on a terminal unescaped.
func sessionsJSON(ss []*session.Session) ([]byte, error) {
	if ss == nil {
		ss = []*session.Session{}
	}
	b, err := visible.EncodeJSON(ss, "  ", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode JSON: %w", err)
	}
	return bytes.TrimSuffix(b, []byte("\n")), nil
}
