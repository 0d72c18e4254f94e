package otlpexport

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
)

// Protocols an Exporter speaks (OTEL_EXPORTER_OTLP_PROTOCOL).
const (
	ProtocolHTTP = "http/protobuf"
	ProtocolGRPC = "grpc"
)

// Config says where and how an Exporter sends.
type Config struct {
	// TracesURL and MetricsURL are where spans and metrics go: for
	// http/protobuf the full URLs (…/v1/traces, …/v1/metrics), for gRPC
	// the Collector's URL (http://host:4317 is sent in plain text).
	// MetricsURL "" sends no metrics.
	TracesURL, MetricsURL string
	// Protocol is ProtocolHTTP or ProtocolGRPC.
	Protocol string
	// Headers are sent with every export request (authentication).
	Headers map[string]string
	// ServiceName is the resource's service.name ("seam" by default) and
	// Resource its other attributes (OTEL_RESOURCE_ATTRIBUTES).
	ServiceName string
	Resource    []attribute.KeyValue
	// Content sends the messages (see the package doc).
	Content bool
	// Queue is how many spans may wait to be sent (default 2048), Batch
	// how many go in one request (default 256), Retry how long a failed
	// batch is retried before its spans are dropped (default 10s) and
	// Timeout the limit on one request (default 10s).
	Queue, Batch   int
	Retry, Timeout time.Duration
	// QueueBytes bounds the memory the queued spans hold, as estimated
	// from their attributes (default DefaultQueueBytes): a span that would
	// pass it is dropped like one that finds the queue full.
	QueueBytes int64
	// Wait makes Export wait for room in a full queue rather than drop
	// the span: for a batch export, which has no stream to hold up.
	Wait bool
	// Interval is how often metrics are sent (default 30s; they are
	// also sent when the Exporter closes).
	Interval time.Duration
	// Log hears, once, that spans are being dropped and why; nil for
	// nowhere.
	Log io.Writer
	// Version is seam's version, the resource's service.version.
	Version string
}

// Defaults of Config.
const (
	DefaultQueue    = 2048
	DefaultBatch    = 256
	DefaultRetry    = 10 * time.Second
	DefaultTimeout  = 10 * time.Second
	DefaultInterval = 30 * time.Second
	// DefaultQueueBytes: with the default queue of 2048 spans, the bound
	// that spans of about 16 KiB (ten findings and no content take about
	// 5) meet first.
	DefaultQueueBytes = 32 << 20
)

// FromEnv reads the OpenTelemetry SDK's standard environment through
// getenv, with endpoint (a --otlp URL, "" for none) standing for
// OTEL_EXPORTER_OTLP_ENDPOINT and taking precedence over it. on is false
// when neither it nor OTEL_EXPORTER_OTLP_ENDPOINT nor
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT names an endpoint, or when
// OTEL_SDK_DISABLED is true: then export is off and cfg is empty. Errors
// name the variable at fault.
//
// Read: OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
// OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL (and
// its _TRACES_ form), OTEL_EXPORTER_OTLP_HEADERS (and _TRACES_HEADERS,
// which win), OTEL_EXPORTER_OTLP_TIMEOUT, OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES, OTEL_METRICS_EXPORTER (none sends no
// metrics), OTEL_METRIC_EXPORT_INTERVAL, OTEL_BSP_MAX_QUEUE_SIZE,
// OTEL_BSP_MAX_EXPORT_BATCH_SIZE and OTEL_SDK_DISABLED.
func FromEnv(getenv func(string) string, endpoint string) (cfg Config, on bool, err error) {
	if b, _ := strconv.ParseBool(strings.TrimSpace(getenv("OTEL_SDK_DISABLED"))); b {
		return Config{}, false, nil
	}
	base := endpoint
	if base == "" {
		base = strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT"))
	}
	traces := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
	if endpoint != "" {
		traces = "" // --otlp names the endpoint of every signal
	}
	if base == "" && traces == "" {
		return Config{}, false, nil
	}
	cfg = Config{ServiceName: "seam", Queue: DefaultQueue, Batch: DefaultBatch, Retry: DefaultRetry, Timeout: DefaultTimeout, Interval: DefaultInterval}
	cfg.Protocol = cmp.Or(strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")), strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_PROTOCOL")), ProtocolHTTP)
	switch cfg.Protocol {
	case ProtocolHTTP, ProtocolGRPC:
	default:
		return Config{}, false, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%q: seam sends http/protobuf or grpc", cfg.Protocol)
	}
	if cfg.TracesURL, err = signalURL(cfg.Protocol, base, traces, "traces"); err != nil {
		return Config{}, false, err
	}
	metrics := ""
	if endpoint == "" {
		metrics = strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"))
	}
	if base != "" || metrics != "" {
		if cfg.MetricsURL, err = signalURL(cfg.Protocol, base, metrics, "metrics"); err != nil {
			return Config{}, false, err
		}
	}
	if strings.TrimSpace(getenv("OTEL_METRICS_EXPORTER")) == "none" {
		cfg.MetricsURL = ""
	}
	if err := cfg.readResource(getenv); err != nil {
		return Config{}, false, err
	}
	if err := cfg.readLimits(getenv); err != nil {
		return Config{}, false, err
	}
	return cfg, true, nil
}

// readResource reads the headers sent with every export and the resource
// the spans describe (OTEL_EXPORTER_OTLP_[TRACES_]HEADERS,
// OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME).
func (c *Config) readResource(getenv func(string) string) error {
	var err error
	if c.Headers, err = parseList(getenv("OTEL_EXPORTER_OTLP_HEADERS"), "OTEL_EXPORTER_OTLP_HEADERS"); err != nil {
		return err
	}
	th, err := parseList(getenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS"), "OTEL_EXPORTER_OTLP_TRACES_HEADERS")
	if err != nil {
		return err
	}
	maps.Copy(c.Headers, th)
	res, err := parseList(getenv("OTEL_RESOURCE_ATTRIBUTES"), "OTEL_RESOURCE_ATTRIBUTES")
	if err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(res)) { // the same resource every run
		v := res[k]
		if k == "service.name" {
			c.ServiceName = v
			continue
		}
		c.Resource = append(c.Resource, attribute.String(k, v))
	}
	if s := strings.TrimSpace(getenv("OTEL_SERVICE_NAME")); s != "" {
		c.ServiceName = s
	}
	return nil
}

// readLimits reads the queue, batch, timeout and interval variables.
func (c *Config) readLimits(getenv func(string) string) error {
	ints := []struct {
		name string
		dst  *int
	}{{"OTEL_BSP_MAX_QUEUE_SIZE", &c.Queue}, {"OTEL_BSP_MAX_EXPORT_BATCH_SIZE", &c.Batch}}
	for _, v := range ints {
		if err := positive(getenv, v.name, v.dst); err != nil {
			return err
		}
	}
	for _, v := range []struct {
		name string
		dst  *time.Duration
	}{{"OTEL_EXPORTER_OTLP_TIMEOUT", &c.Timeout}, {"OTEL_METRIC_EXPORT_INTERVAL", &c.Interval}} {
		ms := int(v.dst.Milliseconds())
		if err := positive(getenv, v.name, &ms); err != nil {
			return err
		}
		*v.dst = time.Duration(ms) * time.Millisecond
	}
	return nil
}

// positive sets *dst to the positive integer variable name holds, when set.
func positive(getenv func(string) string, name string, dst *int) error {
	s := strings.TrimSpace(getenv(name))
	if s == "" {
		return nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return fmt.Errorf("%s=%q: want a positive integer", name, s)
	}
	*dst = n
	return nil
}

// signalURL returns where a signal goes: exact, the signal's own endpoint,
// as it is; else base, to which OTLP/HTTP adds /v1/<signal>.
func signalURL(proto, base, exact, signal string) (string, error) {
	raw, name := exact, "OTEL_EXPORTER_OTLP_"+strings.ToUpper(signal)+"_ENDPOINT"
	if raw == "" {
		raw, name = base, "the OTLP endpoint"
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s %q: want an http or https URL such as http://127.0.0.1:4318", name, raw)
	}
	if exact == "" && proto == ProtocolHTTP {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/" + signal
	}
	return u.String(), nil
}

// parseList parses a W3C-baggage-style list, key=value pairs separated by
// commas with percent-encoded values, as the OTLP headers and resource
// attributes variables hold.
func parseList(s, name string) (map[string]string, error) {
	out := map[string]string{}
	for i, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		k, v, ok := strings.Cut(item, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			// The item may be a secret: say where it is, not what.
			return nil, fmt.Errorf("%s: item %d is not key=value", name, i+1)
		}
		dv, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%s: the value of %q: %w", name, k, err)
		}
		out[k] = dv
	}
	return out, nil
}
