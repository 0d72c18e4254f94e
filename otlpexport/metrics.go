package otlpexport

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Metric names: the GenAI conventions' client metrics and seam's count of
// findings.
const (
	MetricDuration     = "gen_ai.client.operation.duration"
	MetricTokens       = "gen_ai.client.token.usage"
	MetricTTFC         = "gen_ai.client.operation.time_to_first_chunk"
	MetricPerChunk     = "gen_ai.client.operation.time_per_output_chunk"
	MetricFindings     = "seam.findings"
	tokenTypeInput     = "input"
	tokenTypeOutput    = "output"
	findingsMetricDesc = "Findings seam's detectors reported, by id and severity"
)

// Bucket boundaries the conventions give: seconds for durations, tokens
// for usage, seconds per chunk.
var (
	durationBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	tokenBuckets    = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	chunkBuckets    = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5}
)

type instruments struct {
	duration, ttfc, perChunk metric.Float64Histogram
	tokenCounts              metric.Int64Histogram
	findings                 metric.Int64Counter
}

func metricOpts(cfg Config) []metric.MeterOption {
	return []metric.MeterOption{metric.WithInstrumentationVersion(cfg.Version), metric.WithSchemaURL(SchemaURL)}
}

func newInstruments(m metric.Meter) (*instruments, error) {
	var in instruments
	var err error
	if in.duration, err = m.Float64Histogram(MetricDuration, metric.WithUnit("s"),
		metric.WithDescription("GenAI operation duration"), metric.WithExplicitBucketBoundaries(durationBuckets...)); err != nil {
		return nil, err
	}
	if in.tokenCounts, err = m.Int64Histogram(MetricTokens, metric.WithUnit("{token}"),
		metric.WithDescription("Number of input and output tokens used"), metric.WithExplicitBucketBoundaries(tokenBuckets...)); err != nil {
		return nil, err
	}
	if in.ttfc, err = m.Float64Histogram(MetricTTFC, metric.WithUnit("s"),
		metric.WithDescription("Time to receive the first chunk of a streaming response"), metric.WithExplicitBucketBoundaries(durationBuckets...)); err != nil {
		return nil, err
	}
	if in.perChunk, err = m.Float64Histogram(MetricPerChunk, metric.WithUnit("s"),
		metric.WithDescription("Time per output chunk after the first, for streaming responses"), metric.WithExplicitBucketBoundaries(chunkBuckets...)); err != nil {
		return nil, err
	}
	if in.findings, err = m.Int64Counter(MetricFindings, metric.WithUnit("{finding}"), metric.WithDescription(findingsMetricDesc)); err != nil {
		return nil, err
	}
	return &in, nil
}

// record adds the exchange's points.
func (in *instruments) record(s *Span) {
	ctx := context.Background()
	base := []attribute.KeyValue{KeyOperationName.String(s.Operation), KeyProviderName.String(s.Provider)}
	if s.Model != "" {
		base = append(base, KeyRequestModel.String(s.Model))
	}
	if s.ResponseModel != "" {
		base = append(base, KeyResponseModel.String(s.ResponseModel))
	}
	if s.Server != "" {
		base = append(base, KeyServerAddress.String(s.Server))
	}
	ok := metric.WithAttributeSet(attribute.NewSet(base...))
	withErr := ok
	if s.ErrorType != "" {
		withErr = metric.WithAttributeSet(attribute.NewSet(append(base[:len(base):len(base)], KeyErrorType.String(s.ErrorType))...))
	}
	in.duration.Record(ctx, s.Duration, withErr)
	if s.HasUsage {
		in.tokenCounts.Record(ctx, int64(s.TokensIn), metric.WithAttributeSet(attribute.NewSet(append(base[:len(base):len(base)], KeyTokenType.String(tokenTypeInput))...)))
		in.tokenCounts.Record(ctx, int64(s.TokensOut), metric.WithAttributeSet(attribute.NewSet(append(base[:len(base):len(base)], KeyTokenType.String(tokenTypeOutput))...)))
	}
	if s.TTFC > 0 {
		in.ttfc.Record(ctx, s.TTFC, ok)
	}
	if s.PerChunk > 0 {
		in.perChunk.Record(ctx, s.PerChunk, ok)
	}
	for _, f := range s.Findings {
		in.findings.Add(ctx, 1, metric.WithAttributes(KeyFindingID.String(f.ID), KeyFindingSeverity.String(f.Severity.String()), KeyProviderName.String(s.Provider)))
	}
}
