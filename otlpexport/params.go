package otlpexport

import (
	"go.opentelemetry.io/otel/attribute"

	"github.com/tidwall/gjson"
)

// paramPaths lists, per request parameter, where each protocol's request
// body carries it (gjson paths, the first present wins): Chat
// Completions, Responses and Anthropic at the top level, Gemini in
// generationConfig, Bedrock Converse in inferenceConfig, Cohere's p and
// k, Ollama in options.
var paramPaths = []struct {
	key   attribute.Key
	kind  byte // 'f' float, 'i' int, 's' string list
	paths []string
}{
	{KeyRequestTemperature, 'f', []string{"temperature", "generationConfig.temperature", "inferenceConfig.temperature", "options.temperature"}},
	{KeyRequestMaxTokens, 'i', []string{"max_tokens", "max_completion_tokens", "max_output_tokens", "generationConfig.maxOutputTokens", "inferenceConfig.maxTokens", "options.num_predict"}},
	{KeyRequestTopP, 'f', []string{"top_p", "p", "generationConfig.topP", "inferenceConfig.topP", "options.top_p"}},
	{KeyRequestTopK, 'f', []string{"top_k", "k", "generationConfig.topK", "options.top_k"}},
	{KeyRequestStopSequences, 's', []string{"stop", "stop_sequences", "generationConfig.stopSequences", "inferenceConfig.stopSequences", "options.stop"}},
	{KeyRequestFrequency, 'f', []string{"frequency_penalty", "generationConfig.frequencyPenalty", "options.frequency_penalty"}},
	{KeyRequestPresence, 'f', []string{"presence_penalty", "generationConfig.presencePenalty", "options.presence_penalty"}},
	{KeyRequestSeed, 'i', []string{"seed", "generationConfig.seed", "options.seed"}},
	{KeyRequestChoiceCount, 'i', []string{"n", "generationConfig.candidateCount"}},
}

// maxStops bounds how many stop sequences a span carries.
const maxStops = 16

// requestParams returns the request parameters a JSON request body sets,
// as GenAI attributes; a body that is not JSON sets none. A choice count
// of 1 (the default) is left out, as the conventions ask.
func requestParams(body []byte) []attribute.KeyValue {
	if len(body) == 0 || !gjson.ValidBytes(body) {
		return nil
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil
	}
	var out []attribute.KeyValue
	for _, p := range paramPaths {
		var v gjson.Result
		for _, path := range p.paths {
			if v = root.Get(path); v.Exists() && v.Type != gjson.Null {
				break
			}
		}
		if !v.Exists() || v.Type == gjson.Null {
			continue
		}
		switch p.kind {
		case 'f':
			if v.Type == gjson.Number {
				out = append(out, p.key.Float64(v.Float()))
			}
		case 'i':
			if v.Type == gjson.Number && !(p.key == KeyRequestChoiceCount && v.Int() == 1) {
				out = append(out, p.key.Int64(v.Int()))
			}
		case 's':
			var stops []string
			if v.Type == gjson.String {
				stops = append(stops, v.String())
			}
			v.ForEach(func(_, s gjson.Result) bool {
				if s.Type == gjson.String {
					stops = append(stops, s.String())
				}
				return len(stops) < maxStops
			})
			if len(stops) > 0 {
				out = append(out, p.key.StringSlice(stops))
			}
		}
	}
	return out
}
