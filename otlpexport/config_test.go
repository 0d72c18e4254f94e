package otlpexport

import (
	"strings"
	"testing"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestFromEnv(t *testing.T) {
	for _, c := range []struct {
		name            string
		env             map[string]string
		flag            string
		on              bool
		traces, metrics string
		proto, err      string
	}{
		{name: "off", env: nil},
		{name: "endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, on: true, traces: "http://c:4318/v1/traces", metrics: "http://c:4318/v1/metrics", proto: ProtocolHTTP},
		{name: "base path", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://cloud.langfuse.com/api/public/otel/"}, on: true, traces: "https://cloud.langfuse.com/api/public/otel/v1/traces", metrics: "https://cloud.langfuse.com/api/public/otel/v1/metrics", proto: ProtocolHTTP},
		{name: "traces only", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/custom"}, on: true, traces: "http://c:4318/custom", proto: ProtocolHTTP},
		{name: "flag wins", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://env:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://env:4318/t"}, flag: "http://flag:4318", on: true, traces: "http://flag:4318/v1/traces", metrics: "http://flag:4318/v1/metrics", proto: ProtocolHTTP},
		{name: "grpc", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, on: true, traces: "http://c:4317", metrics: "http://c:4317", proto: ProtocolGRPC},
		{name: "disabled", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}, flag: "http://c:4318"},
		{name: "no metrics", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_METRICS_EXPORTER": "none"}, on: true, traces: "http://c:4318/v1/traces", proto: ProtocolHTTP},
		{name: "json refused", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, err: "http/protobuf or grpc"},
		{name: "not a URL", flag: "c:4318", err: "want an http or https URL"},
		{name: "bad queue", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_BSP_MAX_QUEUE_SIZE": "-1"}, err: "OTEL_BSP_MAX_QUEUE_SIZE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, on, err := FromEnv(envOf(c.env), c.flag)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one saying %q", err, c.err)
				}
				return
			}
			if err != nil || on != c.on || cfg.TracesURL != c.traces || cfg.MetricsURL != c.metrics || cfg.Protocol != c.proto {
				t.Fatalf("got %v %v traces %q metrics %q proto %q", err, on, cfg.TracesURL, cfg.MetricsURL, cfg.Protocol)
			}
		})
	}
}

func TestFromEnvHeadersResource(t *testing.T) {
	cfg, on, err := FromEnv(envOf(map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":         "http://c:4318",
		"OTEL_EXPORTER_OTLP_HEADERS":          "Authorization=Basic%20cGs6c2s=, x-langfuse-ingestion-version=4",
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS":   "x-langfuse-ingestion-version=5",
		"OTEL_RESOURCE_ATTRIBUTES":            "deployment.environment=ci,service.name=from-res,openinference.project.name=seam",
		"OTEL_SERVICE_NAME":                   "recorder",
		"OTEL_EXPORTER_OTLP_TIMEOUT":          "2500",
		"OTEL_BSP_MAX_EXPORT_BATCH_SIZE":      "64",
		"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "",
	}), "")
	if err != nil || !on {
		t.Fatal(err, on)
	}
	if cfg.Headers["Authorization"] != "Basic cGs6c2s=" || cfg.Headers["x-langfuse-ingestion-version"] != "5" {
		t.Errorf("headers %v", cfg.Headers)
	}
	if cfg.ServiceName != "recorder" || len(cfg.Resource) != 2 || cfg.Timeout.Milliseconds() != 2500 || cfg.Batch != 64 {
		t.Errorf("service %q resource %v timeout %v batch %d", cfg.ServiceName, cfg.Resource, cfg.Timeout, cfg.Batch)
	}
	_, _, err = FromEnv(envOf(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_HEADERS": "Bearer sk-secret"}), "")
	if err == nil || strings.Contains(err.Error(), "sk-secret") {
		t.Errorf("a malformed header list gives %v: want an error that does not repeat it", err)
	}
}
