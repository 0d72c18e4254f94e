package otlpexport

import (
	"reflect"
	"testing"

	"github.com/tidwall/gjson"
	"go.opentelemetry.io/otel/attribute"
)

// requestParamsGJSON is requestParams as it was before it read the body in
// one pass: a gjson Get per path, the value found made an attribute as
// requestParams makes it.
func requestParamsGJSON(body []byte) []attribute.KeyValue {
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
		out = appendParam(out, p.key, p.kind, v)
	}
	return out
}

// FuzzRequestParams: requestParams reads every body as the gjson Get per
// path it replaced (requestParamsGJSON) does.
func FuzzRequestParams(f *testing.F) {
	for _, b := range []string{
		`{"model":"m","temperature":0.5,"max_tokens":100,"top_p":1,"stop":["a","b"],"seed":7,"n":2,"messages":[{"role":"user","content":"x"}]}`,
		`{"temperature":null,"generationConfig":{"temperature":0.2,"maxOutputTokens":9,"stopSequences":"z","candidateCount":1}}`,
		`{"inferenceConfig":{"maxTokens":5,"topP":0.9},"inferenceConfig":{"temperature":1}}`,
		`{"options":{"temperature":0.1,"num_predict":3,"stop":["x"]},"options":5,"p":0.3,"k":4}`,
		`{"options":7,"options":{"seed":1}}`, `{"te\u006dperature":2,"temperature":3}`, `[1]`, `{"temperature":1`, ``, `{"max_tokens":1} x`,
		`{"max_tokens":"9","max_completion_tokens":10,"stop":"s","frequency_penalty":-1,"presence_penalty":2e0}`,
	} {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, want := requestParams(body), requestParamsGJSON(body)
		if len(got) == 0 && len(want) == 0 {
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s\nrequestParams      %v\nrequestParamsGJSON %v", body, got, want)
		}
	})
}
