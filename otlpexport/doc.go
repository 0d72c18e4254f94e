// Package otlpexport sends seam's exchanges to an OpenTelemetry Collector
// (or any OTLP endpoint) as GenAI spans and metrics.
//
// Each exchange becomes one CLIENT span, built after it ended from what
// package inspect says about it, with the exchange's recorded start and
// end times. The span follows the OpenTelemetry GenAI semantic
// conventions at the version this package pins (SchemaURL: gen-ai
// 1.42.0; the conventions are still "Development", so seam defines its
// own attribute keys rather than importing a semconv package that may
// move them): its name is "{gen_ai.operation.name} {gen_ai.request.model}",
// its attributes the operation, provider, model, request parameters,
// response id, model and finish reasons, time to first chunk, token usage
// and the error type of a failed exchange, and the session seam linked it
// to (gen_ai.conversation.id and session.id). seam adds its own under
// "seam.": where the capture is and which exchange of it (the raw record
// travels by reference, the conventions' pattern for content), the
// SHA-256 of both sides, how each side ended, gap percentiles and stalls,
// and whether the client received what the upstream sent. Each finding is
// a span event named "seam.finding".
//
// Message content (gen_ai.input.messages, gen_ai.output.messages,
// gen_ai.system_instructions) is sent only when Config.Content asks for
// it, and then as the capture holds it: after seam's redaction of
// secrets. Nothing else of a request or response body leaves the
// machine, and no header value.
//
// Metrics are the conventions' client metrics (gen_ai.client.operation.
// duration, gen_ai.client.token.usage, gen_ai.client.operation.
// time_to_first_chunk and time_per_output_chunk) with the bucket
// boundaries they give, and seam.findings, a count of findings by id.
//
// Export never holds up a stream: spans wait in a bounded queue
// (Config.Queue) and go out in batches from a goroutine of their own,
// each failed batch retried with exponential backoff for Config.Retry.
// A span that finds the queue full, or whose batch still failed after its
// retries, is dropped and counted: Exporter.Stats says exactly how many.
// Spans get trace and span ids derived from the capture id and exchange
// number, so sending a capture again (seam export --format otlp) gives
// the same ids, and a backend that keys on them keeps one copy.
//
// Live exports a recording's exchanges as the recorder hands them over
// (capture's RecordingOptions.OnRecorded), each once its last line is in
// the capture, as a reader of the file would read it: nothing is read
// back or decoded again, and the streams never wait for it. It inspects
// them on a goroutine of its own, an Inspector per capture file with
// sessions linked across the files of a rotated recording, as seam
// export --format otlp reads them, so a span sent live is the span a
// back-fill sends.
//
// Configuration is the OpenTelemetry SDK's standard environment (see
// FromEnv): OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
// turn export on, with OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_PROTOCOL
// (http/protobuf, the default, or grpc), OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES and OTEL_SDK_DISABLED.
//
// Besides the standard library and seam's own packages, otlpexport uses
// the OpenTelemetry Go SDK (go.opentelemetry.io/otel, its sdk, sdk/metric
// and OTLP exporters) and github.com/tidwall/gjson for request parameters.
package otlpexport
