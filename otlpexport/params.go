package otlpexport

import (
	"strings"

	"github.com/seam-dev/seam/internal/jsontext"
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
// of 1 (the default) is left out, as the conventions ask. It reads the
// body in one pass (paramValues): a gjson Get per path passed over the
// whole body each time, and an agent's body of tens of KB made that most
// of the export's work per exchange.
func requestParams(body []byte) []attribute.KeyValue {
	found, ok := paramValues(body)
	if !ok {
		return nil
	}
	var out []attribute.KeyValue
	for i, p := range paramPaths {
		var v gjson.Result
		for _, r := range found[i] {
			if v = r; v.Exists() && v.Type != gjson.Null {
				break
			}
		}
		if !v.Exists() || v.Type == gjson.Null {
			continue
		}
		out = appendParam(out, p.key, p.kind, v)
	}
	return out
}

// appendParam appends the attribute key of the kind given ('f', 'i', 's')
// when v holds one.
func appendParam(out []attribute.KeyValue, key attribute.Key, kind byte, v gjson.Result) []attribute.KeyValue {
	switch kind {
	case 'f':
		if v.Type == gjson.Number {
			out = append(out, key.Float64(v.Float()))
		}
	case 'i':
		if v.Type == gjson.Number && !(key == KeyRequestChoiceCount && v.Int() == 1) {
			out = append(out, key.Int64(v.Int()))
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
			out = append(out, key.StringSlice(stops))
		}
	}
	return out
}

// paramPlace is where one of paramPaths' paths leads: the parameter and
// the path's rank among the parameter's.
type paramPlace struct{ param, rank int }

// paramPlaces maps each path of paramPaths to its place, and paramNests
// names the objects a path goes into (generationConfig, …).
var paramPlaces, paramNests = func() (map[string]paramPlace, map[string]bool) {
	places, nests := map[string]paramPlace{}, map[string]bool{}
	for i, p := range paramPaths {
		for j, path := range p.paths {
			places[path] = paramPlace{i, j}
			if outer, _, nested := strings.Cut(path, "."); nested {
				nests[outer] = true
			}
		}
	}
	return places, nests
}()

// paramValues reads body's members that paramPaths name, in one pass:
// found[i][j] is the value at parameter i's path j, as gjson's Get gives
// it: a key's first member, or, for a path into an object, the first
// member of the first object of that name that has one. ok is false for
// a body that is not one JSON object.
func paramValues(body []byte) (found [][]gjson.Result, ok bool) {
	sc := jsontext.NewScanner(string(body))
	if len(body) == 0 || !sc.Open('{') {
		return nil, false
	}
	found = make([][]gjson.Result, len(paramPaths))
	set := func(path string) {
		p := paramPlaces[path]
		if found[p.param] == nil {
			found[p.param] = make([]gjson.Result, len(paramPaths[p.param].paths))
		}
		if found[p.param][p.rank].Exists() { // a later member of the name
			sc.Skip()
			return
		}
		found[p.param][p.rank] = sc.Value().Result()
	}
	for k := range sc.Members() {
		switch {
		case isPath(k):
			set(k)
		case paramNests[k]: // every such object: gjson's Get looks in each
			if !sc.Open('{') {
				sc.Skip()
				continue
			}
			for k2 := range sc.Members() {
				if path := k + "." + k2; isPath(path) {
					set(path)
				} else {
					sc.Skip()
				}
			}
		default:
			sc.Skip()
		}
	}
	return found, sc.End()
}

// isPath reports whether path is one of paramPaths'.
func isPath(path string) bool {
	_, ok := paramPlaces[path]
	return ok
}
