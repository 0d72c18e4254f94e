package otlpexport

import (
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/protocol"
	"github.com/seam-dev/seam/request"
	"github.com/seam-dev/seam/tape"
)

// Exchange is one inspected exchange to export.
type Exchange struct {
	// Header is its capture's header and CaptureURI where the capture is
	// (FileURI for a local file).
	Header     *tape.Header
	CaptureURI string
	// X is the exchange as read and Report what inspect says of it.
	X      *tape.Exchange
	Report *inspect.ExchangeReport
}

// Span is what the span of an exchange says, built by Describe; Exporter
// turns it into an OpenTelemetry span and metric points.
type Span struct {
	Name       string
	Start, End time.Time
	Attrs      []attribute.KeyValue
	Events     []Event
	// Failed is set when the exchange failed (error.type is set), and
	// Error is what the provider said, if anything.
	Failed bool
	Error  string

	// Figures for the metrics.
	Operation, Provider, Model, ResponseModel, Server string
	ErrorType                                         string
	Stream                                            bool
	Duration, TTFC, PerChunk                          float64 // seconds; TTFC and PerChunk 0 when not measured
	TokensIn, TokensOut                               int
	HasUsage                                          bool
	Findings                                          []inspect.Finding
}

// Event is a finding as a span event.
type Event struct {
	Time  time.Time
	Attrs []attribute.KeyValue
}

// maxError bounds the provider's error message a span status carries,
// and maxMessage a finding's message on its event.
const (
	maxError   = 512
	maxMessage = 1024
)

// Describe builds the span of one exchange. content adds the messages
// (gen_ai.input.messages, gen_ai.output.messages and
// gen_ai.system_instructions) as the capture holds them; now is the time
// given to an exchange whose capture records no wall-clock start (an
// import without times).
func Describe(in Exchange, content bool, now time.Time) *Span {
	rep, x, h := in.Report, in.X, in.Header
	view, up, cl := sides(rep)
	base := rep.Origin
	if base == "" && h != nil {
		base = h.Upstream
	}
	host, port, hasServer := server(base)
	s := &Span{
		Operation: operationName(rep.Protocol, rep.Endpoint),
		Provider:  providerName(host, rep.Protocol, rep.Endpoint),
		Model:     rep.Model,
		Findings:  rep.Findings,
	}
	s.Name = s.Operation
	if s.Model != "" {
		s.Name += " " + s.Model
	}
	s.Start, s.End = times(h, x, now)
	s.Duration = s.End.Sub(s.Start).Seconds()

	a := []attribute.KeyValue{
		KeyOperationName.String(s.Operation),
		KeyProviderName.String(s.Provider),
		KeyCaptureURI.String(in.CaptureURI),
		KeyExchange.Int(x.Ex),
		KeyProtocol.String(string(rep.Protocol)),
	}
	if h != nil && h.ID != "" {
		a = append(a, KeyCaptureID.String(h.ID))
	}
	if s.Model != "" {
		a = append(a, KeyRequestModel.String(s.Model))
	}
	var req *request.Request
	if x.Request != nil {
		if req = rep.Request(); req == nil {
			req = request.Parse(x.Request.Body)
		}
		a = append(a, requestParams(x.Request.Body)...)
	}
	s.Stream = (req != nil && req.Stream) || (view != nil && view.Stream)
	a = append(a, KeyRequestStream.Bool(s.Stream))
	if hasServer {
		s.Server = host
		a = append(a, KeyServerAddress.String(host), KeyServerPort.Int(port))
	}
	if rep.Status != 0 {
		a = append(a, KeyHTTPStatus.Int(rep.Status))
	}
	a = s.response(a, rep, view, up)
	a = sideAttrs(a, x, up, cl)
	if m := rep.Metrics; m != nil && m.Gaps > 0 {
		a = append(a, KeyGapP50.Float64(seconds(m.GapP50)), KeyGapP99.Float64(seconds(m.GapP99)), KeyStalls.Int(m.Stalls))
	}
	if r := rep.Session; r != nil && r.ID != "" {
		a = append(a, KeyConversationID.String(r.ID), KeySessionID.String(r.ID), KeySessionTurn.Int(r.Turn))
	}
	a = append(a, KeyFindings.Int(len(rep.Findings)))
	if len(rep.Findings) > 0 {
		worst := inspect.Info
		for _, f := range rep.Findings {
			worst = max(worst, f.Severity)
		}
		a = append(a, KeyWorst.String(worst.String()))
	}
	s.ErrorType = errorType(rep)
	if s.ErrorType != "" {
		s.Failed = true
		s.Error = clip(rep.Error, maxError)
		a = append(a, KeyErrorType.String(s.ErrorType))
	}
	if content {
		a = addContent(a, req, view)
	}
	s.Attrs = a
	s.Events = events(h, rep.Findings, s.Start)
	return s
}

// response adds what the response says: its id, model, finish reasons,
// time to first chunk and usage, read from the side clients received
// (usage from the upstream side when that one reports none).
func (s *Span) response(a []attribute.KeyValue, rep *inspect.ExchangeReport, view, up *inspect.SideReport) []attribute.KeyValue {
	if view == nil || view.Message == nil {
		return a
	}
	m := view.Message
	if m.ID != "" {
		a = append(a, KeyResponseID.String(m.ID))
	}
	if m.Model != "" {
		s.ResponseModel = m.Model
		a = append(a, KeyResponseModel.String(m.Model))
	}
	var reasons []string
	for _, c := range m.Choices {
		if c.FinishReason != "" {
			reasons = append(reasons, c.FinishReason)
		}
	}
	if len(reasons) > 0 {
		a = append(a, KeyResponseFinish.StringSlice(reasons))
	}
	if s.Stream && rep.TTFB > 0 {
		s.TTFC = seconds(rep.TTFB)
		a = append(a, KeyResponseTTFC.Float64(s.TTFC))
		if chunks := view.ChunkList(); len(chunks) > 1 {
			if d := chunks[len(chunks)-1].T - chunks[0].T; d > 0 {
				s.PerChunk = seconds(d) / float64(len(chunks)-1)
			}
		}
	}
	u := m.Usage
	if u == nil && up != nil && up.Message != nil {
		u = up.Message.Usage
	}
	if u != nil {
		s.HasUsage, s.TokensIn, s.TokensOut = true, u.Input, u.Output
		a = append(a, KeyUsageInput.Int(u.Input), KeyUsageOutput.Int(u.Output))
		a = usage(a, u)
	}
	return a
}

// usage adds the cache and reasoning token counts a usage reports.
func usage(a []attribute.KeyValue, u *protocol.Usage) []attribute.KeyValue {
	if u.CacheRead > 0 {
		a = append(a, KeyUsageCacheRead.Int(u.CacheRead))
	}
	if u.CacheCreation > 0 {
		a = append(a, KeyUsageCacheCreation.Int(u.CacheCreation))
	}
	if u.Reasoning > 0 {
		a = append(a, KeyUsageReasoning.Int(u.Reasoning))
	}
	return a
}

// sideAttrs adds each side's SHA-256 and outcome, and the verdict on the
// two.
func sideAttrs(a []attribute.KeyValue, x *tape.Exchange, up, cl *inspect.SideReport) []attribute.KeyValue {
	if e := x.Upstream.End; e != nil {
		if e.SHA256 != "" {
			a = append(a, KeyUpstreamSHA256.String(e.SHA256))
		}
		a = append(a, KeyUpstreamOutcome.String(string(e.Outcome)))
	}
	if e := x.Client.End; e != nil {
		if e.SHA256 != "" {
			a = append(a, KeyClientSHA256.String(e.SHA256))
		}
		a = append(a, KeyClientOutcome.String(string(e.Outcome)))
	}
	if v := Verdict(x, up, cl); v != "" {
		a = append(a, KeyVerdict.String(v))
	}
	return a
}

// Verdict says whether the client received what the upstream sent: the
// same bytes (VerdictIdentical), other bytes that assemble to the same
// message (VerdictEquivalent), another message (VerdictChanged), or that
// only one side was recorded; "" when neither was.
func Verdict(x *tape.Exchange, up, cl *inspect.SideReport) string {
	ue, ce := x.Upstream.End, x.Client.End
	switch {
	case up == nil && cl == nil:
		return ""
	case cl == nil:
		return VerdictUpstreamOnly
	case up == nil:
		return VerdictClientOnly
	case ue != nil && ce != nil && ue.SHA256 != "" && ue.SHA256 == ce.SHA256:
		return VerdictIdentical
	case up.Status == cl.Status && inspect.SameAssembly(up.Message, cl.Message):
		return VerdictEquivalent
	}
	return VerdictChanged
}

// errorType returns error.type for a failed exchange: the HTTP status
// when the side clients received failed with one, else its outcome when
// that is not a success; "" for an exchange that went well.
func errorType(rep *inspect.ExchangeReport) string {
	if rep.Status >= 400 {
		return strconv.Itoa(rep.Status)
	}
	if rep.Outcome != "" && !rep.Outcome.Success() {
		return string(rep.Outcome)
	}
	return ""
}

// addContent adds the messages, as the capture holds them.
func addContent(a []attribute.KeyValue, req *request.Request, view *inspect.SideReport) []attribute.KeyValue {
	if req != nil {
		sys, in := inputMessages(req)
		if sys != "" {
			a = append(a, KeySystemInstructions.String(sys))
		}
		if in != "" {
			a = append(a, KeyInputMessages.String(in))
		}
	}
	if view != nil {
		if out := outputMessages(view.Message); out != "" {
			a = append(a, KeyOutputMessages.String(out))
		}
	}
	return a
}

// events turns findings into span events, each at the time of the chunk
// that completed its event (the span's start when it points at none).
func events(h *tape.Header, fs []inspect.Finding, start time.Time) []Event {
	out := make([]Event, 0, len(fs))
	for _, f := range fs {
		t := start
		if h != nil && !h.Started.IsZero() && f.Pointer.T >= 0 {
			t = h.Started.Add(time.Duration(f.Pointer.T))
		}
		attrs := []attribute.KeyValue{
			KeyFindingID.String(f.ID),
			KeyFindingSeverity.String(f.Severity.String()),
			KeyFindingMessage.String(clip(f.Message, maxMessage)),
		}
		if f.Pointer.Side != "" {
			attrs = append(attrs, KeyFindingSide.String(string(f.Pointer.Side)))
		}
		if f.Pointer.Event >= 0 {
			attrs = append(attrs, KeyFindingEvent.Int(f.Pointer.Event))
		}
		out = append(out, Event{Time: t, Attrs: attrs})
	}
	return out
}

// times returns when the exchange started (its request) and ended (the
// last of its end lines), as wall-clock times: the capture's start plus
// the recorded offsets, or now for a capture that records no start.
func times(h *tape.Header, x *tape.Exchange, now time.Time) (start, end time.Time) {
	var t0, t1 int64 = -1, 0
	if x.Request != nil {
		t0 = x.Request.T
	}
	for _, e := range []*tape.End{x.Upstream.End, x.Client.End} {
		if e != nil {
			t1 = max(t1, e.T)
			if t0 < 0 {
				t0 = e.T
			}
		}
	}
	t0 = max(t0, 0)
	t1 = max(t1, t0)
	if h == nil || h.Started.IsZero() {
		return now, now.Add(time.Duration(t1 - t0))
	}
	return h.Started.Add(time.Duration(t0)), h.Started.Add(time.Duration(t1))
}

// sides returns the side clients received (client when recorded, else
// upstream) and each side's report, nil when not recorded.
func sides(rep *inspect.ExchangeReport) (view, up, cl *inspect.SideReport) {
	for _, s := range rep.Sides {
		switch s.Side {
		case tape.Upstream:
			up = s
		case tape.Client:
			cl = s
		}
	}
	if cl != nil {
		return cl, up, cl
	}
	return up, up, cl
}

func seconds(ns int64) float64 { return float64(ns) / 1e9 }

// clip shortens s to at most n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") // drops a rune cut in two
}
