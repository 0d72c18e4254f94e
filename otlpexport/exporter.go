package otlpexport

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/seam-dev/seam/internal/units"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// scope is the instrumentation scope of seam's spans and metrics.
const scope = "github.com/seam-dev/seam/otlpexport"

// Span limits: findings beyond maxEvents are counted as dropped events
// on the span; an attribute value (content, when sent) is cut at
// maxValue bytes.
const (
	maxEvents = 128
	maxValue  = 64 << 10
)

// Exporter sends exchanges as spans and metrics. Export may be called from
// one goroutine at a time; Stats from any.
type Exporter struct {
	cfg    Config
	tp     *sdktrace.TracerProvider
	mp     *sdkmetric.MeterProvider
	q      *queue
	tracer trace.Tracer
	m      *instruments
	now    func() time.Time
	closed sync.Once
}

// New returns an Exporter sending as cfg says. It connects to nothing
// until the first batch goes out.
func New(ctx context.Context, cfg Config) (*Exporter, error) {
	if cfg.Queue <= 0 {
		cfg.Queue = DefaultQueue
	}
	if cfg.Batch <= 0 {
		cfg.Batch = DefaultBatch
	}
	cfg.Batch = min(cfg.Batch, cfg.Queue)
	if cfg.Retry <= 0 {
		cfg.Retry = DefaultRetry
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.ServiceName == "" {
		cfg.ServiceName = "seam"
	}
	attrs := append([]attribute.KeyValue{attribute.String("service.name", cfg.ServiceName)}, cfg.Resource...)
	if cfg.Version != "" {
		attrs = append(attrs, attribute.String("service.version", cfg.Version))
	}
	res, err := resource.New(ctx, resource.WithAttributes(attrs...), resource.WithTelemetrySDK(), resource.WithHost())
	if err != nil && res == nil {
		return nil, fmt.Errorf("otlp: resource: %w", err)
	}
	spans, err := traceExporter(ctx, cfg)
	if err != nil {
		return nil, err
	}
	// The SDK reports its own errors (a metric export that failed)
	// through the global handler: say the first one, as the queue does.
	otel.SetErrorHandler(onceHandler(cfg))
	x := &Exporter{cfg: cfg, q: newQueue(spans, cfg), now: time.Now}
	x.tp = sdktrace.NewTracerProvider(
		sdktrace.WithSpanProcessor(x.q),
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithIDGenerator(exchangeIDs{}),
		sdktrace.WithRawSpanLimits(sdktrace.SpanLimits{
			AttributeValueLengthLimit: maxValue, AttributeCountLimit: 128,
			EventCountLimit: maxEvents, AttributePerEventCountLimit: 16,
			LinkCountLimit: 0, AttributePerLinkCountLimit: 0,
		}))
	x.tracer = x.tp.Tracer(scope, trace.WithInstrumentationVersion(cfg.Version), trace.WithSchemaURL(SchemaURL))
	if cfg.MetricsURL != "" {
		me, err := metricExporter(ctx, cfg)
		if err != nil {
			x.tp.Shutdown(ctx)
			return nil, err
		}
		x.mp = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
			sdkmetric.WithReader(sdkmetric.NewPeriodicReader(me, sdkmetric.WithInterval(cfg.Interval), sdkmetric.WithTimeout(cfg.Timeout))))
		if x.m, err = newInstruments(x.mp.Meter(scope, metricOpts(cfg)...)); err != nil {
			x.tp.Shutdown(ctx)
			x.mp.Shutdown(ctx)
			return nil, err
		}
	}
	return x, nil
}

// traceExporter returns the OTLP span exporter cfg names. Retries are the
// queue's, so the exporter's own are off.
func traceExporter(ctx context.Context, cfg Config) (sdktrace.SpanExporter, error) {
	var (
		exp sdktrace.SpanExporter
		err error
	)
	switch cfg.Protocol {
	case ProtocolGRPC:
		exp, err = otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(cfg.TracesURL), otlptracegrpc.WithHeaders(cfg.Headers),
			otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: false}), otlptracegrpc.WithTimeout(cfg.Timeout))
	default:
		exp, err = otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(cfg.TracesURL), otlptracehttp.WithHeaders(cfg.Headers),
			otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}), otlptracehttp.WithTimeout(cfg.Timeout))
	}
	if err != nil {
		return nil, fmt.Errorf("otlp: traces exporter for %s: %w", cfg.TracesURL, err)
	}
	return exp, nil
}

// metricExporter returns the OTLP metric exporter cfg names.
func metricExporter(ctx context.Context, cfg Config) (sdkmetric.Exporter, error) {
	var (
		exp sdkmetric.Exporter
		err error
	)
	switch cfg.Protocol {
	case ProtocolGRPC:
		exp, err = otlpmetricgrpc.New(ctx, otlpmetricgrpc.WithEndpointURL(cfg.MetricsURL), otlpmetricgrpc.WithHeaders(cfg.Headers),
			otlpmetricgrpc.WithTimeout(cfg.Timeout))
	default:
		exp, err = otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(cfg.MetricsURL), otlpmetrichttp.WithHeaders(cfg.Headers),
			otlpmetrichttp.WithTimeout(cfg.Timeout))
	}
	if err != nil {
		return nil, fmt.Errorf("otlp: metrics exporter for %s: %w", cfg.MetricsURL, err)
	}
	return exp, nil
}

// onceHandler says the first error the SDK reports on cfg.Log.
func onceHandler(cfg Config) otel.ErrorHandlerFunc {
	var once sync.Once
	return func(err error) {
		if cfg.Log == nil {
			return
		}
		once.Do(func() { fmt.Fprintf(cfg.Log, "otlp: %v\n", err) })
	}
}

// Export sends the span and the metric points of one exchange. It never
// blocks on the network.
func (x *Exporter) Export(in Exchange) {
	s := Describe(in, x.cfg.Content, x.now())
	ctx := context.WithValue(context.Background(), idKey{}, exchangeKey(in))
	_, span := x.tracer.Start(ctx, s.Name, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(s.Start), trace.WithAttributes(s.Attrs...))
	for _, e := range s.Events {
		span.AddEvent(FindingEvent, trace.WithTimestamp(e.Time), trace.WithAttributes(e.Attrs...))
	}
	if s.Failed {
		span.SetStatus(codes.Error, s.Error)
	}
	span.End(trace.WithTimestamp(s.End))
	if x.m != nil {
		x.m.record(s)
	}
}

// Close sends what is queued and the metrics, waiting until ctx is done
// at most: spans still queued then are dropped and counted.
func (x *Exporter) Close(ctx context.Context) error {
	var err error
	x.closed.Do(func() {
		err = x.tp.Shutdown(ctx)
		if x.mp != nil {
			err = errors.Join(err, x.mp.Shutdown(ctx))
		}
	})
	return err
}

// Wait makes Export wait for room in a full queue rather than drop the
// span (Config.Wait), from now on.
func (x *Exporter) Wait() { x.q.waitOn.Store(true) }

// Stats says how many spans were sent and dropped so far.
func (x *Exporter) Stats() Stats { return x.q.stats() }

// Summary is the line a command prints about the export once it closed.
func (x *Exporter) Summary() string {
	st := x.Stats()
	line := fmt.Sprintf("otlp: %d %s sent to %s", st.Sent, units.Noun(st.Sent, "span"), x.cfg.TracesURL)
	if st.Dropped > 0 {
		line += fmt.Sprintf(", %d dropped (%v); the capture holds them all: seam export --format otlp sends them again", st.Dropped, st.LastError)
	}
	return line
}

// idKey is the context key under which Export passes the exchange's key
// to the id generator.
type idKey struct{}

// exchangeKey identifies an exchange across exports: its capture's id and
// its number (the capture URI when the capture has no id).
func exchangeKey(in Exchange) string {
	id := in.CaptureURI
	if in.Header != nil && in.Header.ID != "" {
		id = in.Header.ID
	}
	return id + "#" + strconv.Itoa(in.X.Ex)
}

// exchangeIDs derives a span's trace and span ids from its exchange's key,
// so the same exchange exported twice has the same ids.
type exchangeIDs struct{}

func (exchangeIDs) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	var tid trace.TraceID
	var sid trace.SpanID
	key, ok := ctx.Value(idKey{}).(string)
	if !ok {
		rand.Read(tid[:])
		rand.Read(sid[:])
		return tid, sid
	}
	sum := sha256.Sum256([]byte("seam span " + key))
	copy(tid[:], sum[:16])
	copy(sid[:], sum[16:24])
	return tid, sid
}

func (exchangeIDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	var sid trace.SpanID
	rand.Read(sid[:])
	return sid
}
