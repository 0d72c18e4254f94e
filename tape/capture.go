package tape

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// SideData is one side of an exchange: its response line, its chunks in file
// order and its end line. Response and End are nil when the capture lacks them
// (a recording cut short).
type SideData struct {
	Response *Response
	Chunks   []Chunk
	End      *End
}

// Body returns the side's body: the data of its chunks joined in order.
func (s *SideData) Body() []byte {
	n := 0
	for _, c := range s.Chunks {
		n += len(c.Data)
	}
	body := make([]byte, 0, n)
	for _, c := range s.Chunks {
		body = append(body, c.Data...)
	}
	return body
}

// Exchange gathers the records of one request/response pair.
type Exchange struct {
	Ex      int
	Request *Request
	// UpstreamRequest is, in a sandwich recording, the request as the proxy
	// under test sent it upstream; nil otherwise.
	UpstreamRequest *Request
	Upstream        SideData
	Client          SideData
	Notes           []Note
	// Anomalies are the places where the exchange's lines contradict each
	// other (offsets, times, byte counts, a missing end), found as it was
	// read.
	Anomalies []Anomaly
	// Continued is set on an exchange an [ExchangeReader] handed over a
	// second time: lines that came after it was complete.
	Continued bool
}

// Side returns the data of side s, or nil for an unknown side.
func (x *Exchange) Side(s Side) *SideData {
	switch s {
	case Upstream:
		return &x.Upstream
	case Client:
		return &x.Client
	}
	return nil
}

// BaseURL returns the URL r's url is relative to, without a trailing slash:
// scheme://host from r itself when it has them (a forward-proxy recording),
// else the upstream base URL of the capture header h.
func BaseURL(h *Header, r *Request) string {
	if r != nil && r.Host != "" {
		scheme := r.Scheme
		if scheme == "" {
			scheme = "https"
		}
		return scheme + "://" + r.Host
	}
	if h == nil {
		return ""
	}
	return strings.TrimSuffix(h.Upstream, "/")
}

// Capture is a whole capture file held in memory, for tools that need whole
// exchanges. Stream a large file with a [Decoder] instead.
type Capture struct {
	// Name is the file name given to Read.
	Name   string
	Header Header
	// Exchanges are in order of their first line in the file.
	Exchanges []*Exchange
	// Warnings are the problems skipped while reading: a torn last line,
	// unknown line types, malformed lines and duplicate lines, each naming the
	// file and line.
	Warnings []error
	// Notes holds the notes on the capture as a whole (ex 0).
	Notes []Note
}

// Read decodes a whole capture. Errors about the file as a whole (empty, no
// header, an unsupported version, a read error) are returned; problems with
// single lines are collected in Capture.Warnings and the line is skipped.
func Read(r io.Reader, name string) (*Capture, error) {
	d := NewDecoder(r, name)
	c := &Capture{Name: name}
	g := newGatherer(name)
	for {
		rec, err := d.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var lerr *LineError
		if errors.As(err, &lerr) && d.Header() != nil {
			c.Warnings = append(c.Warnings, err)
			continue
		}
		if err != nil {
			return nil, err
		}
		if rec.Kind == KindHeader {
			c.Header = *rec.Header
			continue
		}
		g.add(rec)
	}
	for _, gx := range g.open() {
		c.Exchanges = append(c.Exchanges, gx.finish())
	}
	c.Notes = g.notes
	c.Warnings = append(append(d.Warnings(), c.Warnings...), g.warnings...)
	slices.SortStableFunc(c.Warnings, func(a, b error) int { return cmp.Compare(warningLine(a), warningLine(b)) })
	return c, nil
}

// ReadFile reads the capture in the named file. It does not treat "-" as
// stdin; callers that accept "-" pass os.Stdin to [Read].
func ReadFile(path string) (*Capture, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open capture: %w", err)
	}
	defer f.Close()
	return Read(f, path)
}

// warningLine returns the line number of a warning, for sorting.
func warningLine(err error) int {
	var lerr *LineError
	if errors.As(err, &lerr) {
		return lerr.Line
	}
	return 0
}

// CountExchanges returns how many exchanges caps hold.
func CountExchanges(caps []*Capture) int {
	n := 0
	for _, c := range caps {
		n += len(c.Exchanges)
	}
	return n
}
