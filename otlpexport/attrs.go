package otlpexport

import "go.opentelemetry.io/otel/attribute"

// SchemaURL is the GenAI semantic conventions version the spans and
// metrics follow.
const SchemaURL = "https://opentelemetry.io/schemas/gen-ai/1.42.0"

// Attribute keys of the GenAI semantic conventions (gen-ai 1.42.0) and the
// core attributes they borrow.
const (
	KeyOperationName        = attribute.Key("gen_ai.operation.name")
	KeyProviderName         = attribute.Key("gen_ai.provider.name")
	KeyRequestModel         = attribute.Key("gen_ai.request.model")
	KeyRequestStream        = attribute.Key("gen_ai.request.stream")
	KeyRequestTemperature   = attribute.Key("gen_ai.request.temperature")
	KeyRequestMaxTokens     = attribute.Key("gen_ai.request.max_tokens")
	KeyRequestTopP          = attribute.Key("gen_ai.request.top_p")
	KeyRequestTopK          = attribute.Key("gen_ai.request.top_k")
	KeyRequestStopSequences = attribute.Key("gen_ai.request.stop_sequences")
	KeyRequestFrequency     = attribute.Key("gen_ai.request.frequency_penalty")
	KeyRequestPresence      = attribute.Key("gen_ai.request.presence_penalty")
	KeyRequestSeed          = attribute.Key("gen_ai.request.seed")
	KeyRequestChoiceCount   = attribute.Key("gen_ai.request.choice.count")
	KeyResponseID           = attribute.Key("gen_ai.response.id")
	KeyResponseModel        = attribute.Key("gen_ai.response.model")
	KeyResponseFinish       = attribute.Key("gen_ai.response.finish_reasons")
	KeyResponseTTFC         = attribute.Key("gen_ai.response.time_to_first_chunk")
	KeyUsageInput           = attribute.Key("gen_ai.usage.input_tokens")
	KeyUsageOutput          = attribute.Key("gen_ai.usage.output_tokens")
	KeyUsageCacheRead       = attribute.Key("gen_ai.usage.cache_read.input_tokens")
	KeyUsageCacheCreation   = attribute.Key("gen_ai.usage.cache_creation.input_tokens")
	KeyUsageReasoning       = attribute.Key("gen_ai.usage.reasoning.output_tokens")
	KeyConversationID       = attribute.Key("gen_ai.conversation.id")
	KeyTokenType            = attribute.Key("gen_ai.token.type")
	KeyInputMessages        = attribute.Key("gen_ai.input.messages")
	KeyOutputMessages       = attribute.Key("gen_ai.output.messages")
	KeySystemInstructions   = attribute.Key("gen_ai.system_instructions")

	KeyServerAddress = attribute.Key("server.address")
	KeyServerPort    = attribute.Key("server.port")
	KeyErrorType     = attribute.Key("error.type")
	KeyHTTPStatus    = attribute.Key("http.response.status_code")
	KeySessionID     = attribute.Key("session.id")
)

// seam's own attribute keys.
const (
	// KeyCaptureURI is where the capture holding the exchange is (a file:
	// URI, or the object's URI once uploaded).
	KeyCaptureURI = attribute.Key("seam.capture.uri")
	// KeyCaptureID is the capture header's id.
	KeyCaptureID = attribute.Key("seam.capture.id")
	// KeyExchange is the exchange's number in its capture.
	KeyExchange = attribute.Key("seam.exchange")
	// KeyProtocol is the protocol seam read the exchange as
	// ("openai-chat", "anthropic-messages", …).
	KeyProtocol = attribute.Key("seam.protocol")
	// KeyUpstreamSHA256 and KeyClientSHA256 are the hex SHA-256 of the
	// body each side carried, as its end line records it.
	KeyUpstreamSHA256 = attribute.Key("seam.upstream.sha256")
	KeyClientSHA256   = attribute.Key("seam.client.sha256")
	// KeyUpstreamOutcome and KeyClientOutcome say how each side ended
	// ("complete", "truncated", "client_aborted", …).
	KeyUpstreamOutcome = attribute.Key("seam.upstream.outcome")
	KeyClientOutcome   = attribute.Key("seam.client.outcome")
	// KeyGapP50 and KeyGapP99 are the median and 99th percentile gap
	// between chunks of the side clients received, in seconds; KeyStalls
	// counts its gaps over the stall threshold.
	KeyGapP50 = attribute.Key("seam.stream.gap.p50")
	KeyGapP99 = attribute.Key("seam.stream.gap.p99")
	KeyStalls = attribute.Key("seam.stream.stalls")
	// KeyVerdict says whether the client received what the upstream sent
	// (see Verdict).
	KeyVerdict = attribute.Key("seam.sides.verdict")
	// KeySessionTurn is the exchange's turn in its session, from 1.
	KeySessionTurn = attribute.Key("seam.session.turn")
	// KeyFindings counts the exchange's findings and KeyWorst names the
	// most serious severity among them.
	KeyFindings = attribute.Key("seam.findings.count")
	KeyWorst    = attribute.Key("seam.findings.worst")

	// Attributes of a "seam.finding" span event and of the seam.findings
	// metric.
	KeyFindingID       = attribute.Key("seam.finding.id")
	KeyFindingSeverity = attribute.Key("seam.finding.severity")
	KeyFindingSide     = attribute.Key("seam.finding.side")
	KeyFindingEvent    = attribute.Key("seam.finding.event")
	KeyFindingMessage  = attribute.Key("seam.finding.message")
)

// FindingEvent is the name of the span event each finding becomes.
const FindingEvent = "seam.finding"

// Verdicts: whether the client received what the upstream sent.
const (
	// VerdictIdentical: the two sides' bodies have the same SHA-256.
	VerdictIdentical = "identical"
	// VerdictEquivalent: the bytes differ, the assembled messages do not.
	VerdictEquivalent = "equivalent"
	// VerdictChanged: the client received another message than the
	// upstream sent.
	VerdictChanged = "changed"
	// VerdictUpstreamOnly and VerdictClientOnly: only one side was
	// recorded.
	VerdictUpstreamOnly = "upstream_only"
	VerdictClientOnly   = "client_only"
)
