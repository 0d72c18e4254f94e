package main

import (
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// otlpRecv is a loopback OTLP/HTTP receiver that decodes what seam sends
// with the Collector's own pdata, as an otlpreceiver does.
type otlpRecv struct {
	t    *testing.T
	addr string

	mu      sync.Mutex
	srv     *http.Server
	spans   []recvSpan
	metrics map[string]int // metric name → data points received
	bodies  [][]byte
	posts   int
	heads   []http.Header
}

// recvSpan is a span as the receiver decoded it.
type recvSpan struct {
	TraceID, SpanID string
	Name            string
	Kind            ptrace.SpanKind
	Start, End      time.Time
	Attrs           map[string]any
	Events          []recvEvent
	StatusCode      ptrace.StatusCode
	StatusMsg       string
	Resource        map[string]any
	SchemaURL       string
}

type recvEvent struct {
	Name  string
	Time  time.Time
	Attrs map[string]any
}

func newOTLPRecv(t *testing.T) *otlpRecv {
	r := &otlpRecv{t: t, metrics: map[string]int{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.addr = ln.Addr().String()
	r.serve(ln)
	t.Cleanup(r.down)
	return r
}

// URL is the receiver's base URL, for --otlp.
func (r *otlpRecv) URL() string { return "http://" + r.addr }

func (r *otlpRecv) serve(ln net.Listener) {
	srv := &http.Server{Handler: http.HandlerFunc(r.handle)}
	r.mu.Lock()
	r.srv = srv
	r.mu.Unlock()
	go srv.Serve(ln)
}

// down stops the receiver: connections are refused.
func (r *otlpRecv) down() {
	r.mu.Lock()
	srv := r.srv
	r.srv = nil
	r.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

// up starts it again on the same address.
func (r *otlpRecv) up() {
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ {
		if ln, err = net.Listen("tcp", r.addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		r.t.Fatalf("receiver up again on %s: %v", r.addr, err)
	}
	r.serve(ln)
}

func (r *otlpRecv) handle(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		r.t.Errorf("OTLP %s with Content-Type %q", req.URL.Path, ct)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bodies = append(r.bodies, body)
	r.heads = append(r.heads, req.Header.Clone())
	switch req.URL.Path {
	case "/v1/traces":
		er := ptraceotlp.NewExportRequest()
		if err := er.UnmarshalProto(body); err != nil {
			r.t.Errorf("decode traces: %v", err)
			http.Error(w, err.Error(), 400)
			return
		}
		r.posts++
		r.addTraces(er.Traces())
		out, _ := ptraceotlp.NewExportResponse().MarshalProto()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	case "/v1/metrics":
		er := pmetricotlp.NewExportRequest()
		if err := er.UnmarshalProto(body); err != nil {
			r.t.Errorf("decode metrics: %v", err)
			http.Error(w, err.Error(), 400)
			return
		}
		rms := er.Metrics().ResourceMetrics()
		for i := 0; i < rms.Len(); i++ {
			sms := rms.At(i).ScopeMetrics()
			for j := 0; j < sms.Len(); j++ {
				ms := sms.At(j).Metrics()
				for k := 0; k < ms.Len(); k++ {
					switch m := ms.At(k); m.Type() {
					case pmetric.MetricTypeHistogram:
						r.metrics[m.Name()] += m.Histogram().DataPoints().Len()
					case pmetric.MetricTypeSum:
						r.metrics[m.Name()] += m.Sum().DataPoints().Len()
					default:
						r.t.Errorf("metric %s of type %v", m.Name(), m.Type())
					}
				}
			}
		}
		out, _ := pmetricotlp.NewExportResponse().MarshalProto()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	default:
		http.NotFound(w, req)
	}
}

func (r *otlpRecv) addTraces(td ptrace.Traces) {
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		res := attrMap(rss.At(i).Resource().Attributes())
		sss := rss.At(i).ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			ss := sss.At(j).Spans()
			for k := 0; k < ss.Len(); k++ {
				s := ss.At(k)
				rs := recvSpan{
					TraceID: s.TraceID().String(), SpanID: s.SpanID().String(), Name: s.Name(), Kind: s.Kind(),
					Start: s.StartTimestamp().AsTime(), End: s.EndTimestamp().AsTime(), Attrs: attrMap(s.Attributes()),
					StatusCode: s.Status().Code(), StatusMsg: s.Status().Message(), Resource: res, SchemaURL: sss.At(j).SchemaUrl(),
				}
				for e := 0; e < s.Events().Len(); e++ {
					ev := s.Events().At(e)
					rs.Events = append(rs.Events, recvEvent{Name: ev.Name(), Time: ev.Timestamp().AsTime(), Attrs: attrMap(ev.Attributes())})
				}
				r.spans = append(r.spans, rs)
			}
		}
	}
}

// attrMap turns attributes into Go values: string, int64, float64, bool,
// []any.
func attrMap(m pcommon.Map) map[string]any {
	out := map[string]any{}
	m.Range(func(k string, v pcommon.Value) bool {
		out[k] = v.AsRaw()
		return true
	})
	return out
}

// Spans returns the spans received so far.
func (r *otlpRecv) Spans() []recvSpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]recvSpan(nil), r.spans...)
}

// Metrics returns the data points received so far per metric name.
func (r *otlpRecv) Metrics() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int{}
	for k, v := range r.metrics {
		out[k] = v
	}
	return out
}

// Bodies returns every request body received.
func (r *otlpRecv) Bodies() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.bodies...)
}

// waitSpans waits until n spans have come, failing the test after d.
func (r *otlpRecv) waitSpans(n int, d time.Duration) []recvSpan {
	r.t.Helper()
	deadline := time.Now().Add(d)
	for {
		s := r.Spans()
		if len(s) >= n {
			return s
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("%d spans received after %v, want %d", len(s), d, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var errNoSpan = errors.New("no span")

// span returns the span of exchange ex.
func spanOf(spans []recvSpan, ex int) (recvSpan, error) {
	for _, s := range spans {
		if n, ok := s.Attrs["seam.exchange"].(int64); ok && int(n) == ex {
			return s, nil
		}
	}
	return recvSpan{}, errNoSpan
}
