package replay

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// DefaultIgnore returns the top-level request fields matching ignores by
// default. None of them changes what a model generates; each is set per
// client, per user or per run:
//
//   - stream_options: asks for a usage chunk (include_usage) and the like;
//   - user, safety_identifier: the end user, for abuse monitoring;
//   - metadata: caller tags (Anthropic's metadata.user_id, OpenAI's
//     key-value tags);
//   - store: whether OpenAI keeps the completion;
//   - prompt_cache_key, prompt_cache_retention: prompt cache routing;
//   - service_tier: latency and price tier.
//
// [ServerOptions.Ignore] adds to this list.
func DefaultIgnore() []string {
	return []string{
		"stream_options", "user", "safety_identifier", "metadata", "store",
		"prompt_cache_key", "prompt_cache_retention", "service_tier",
	}
}

// idKeys are the fields, inside the message history, that hold ids the
// upstream generated and the client sends back: tool call ids (Chat
// tool_calls[].id and tool_call_id; Anthropic tool_use.id and
// tool_result.tool_use_id; Responses call_id) and item ids (Responses
// input items' id). previous_response_id, at the top level, is one too.
var idKeys = map[string]bool{"id": true, "tool_call_id": true, "tool_use_id": true, "call_id": true}

// idPrefix marks an id replaced by its order of first appearance.
const idPrefix = "seam-id-"

// historyKeys are the top-level fields holding the conversation: messages
// for Chat Completions and Anthropic Messages, input for Responses.
var historyKeys = []string{"messages", "input"}

// Canonical returns body in the form matching compares: for a JSON object,
// object keys sorted, the top-level fields in ignore (and those of
// [DefaultIgnore]) removed, and the ids in the message history that the
// upstream generated replaced by their order of first appearance, so that
// which tool result answers which call still matters but the ids' values do
// not, and numbers written one way per value (1.0 as 1). A body that is not a JSON object is returned unchanged.
func Canonical(body []byte, ignore []string) []byte {
	doc, ok := parseBody(body, ignoreSet(ignore))
	if !ok {
		return body
	}
	return encodeCanonical(doc)
}

func ignoreSet(extra []string) map[string]bool {
	set := map[string]bool{}
	for _, f := range DefaultIgnore() {
		set[f] = true
	}
	for _, f := range extra {
		set[f] = true
	}
	return set
}

// parseBody decodes body as one JSON object, drops the ignored top-level
// fields and renumbers the ids. It reports false for anything else.
func parseBody(body []byte, ignore map[string]bool) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil || doc == nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false // trailing data after the object, valid or not
	}
	for k := range doc {
		if ignore[k] {
			delete(doc, k)
		}
	}
	normNumbers(doc)
	ids := map[string]string{}
	// Keys in sorted order: the numbering follows the canonical form, so two
	// bodies that differ only in key order and id values number alike.
	for _, k := range sortedKeys(doc) {
		switch {
		case slices.Contains(historyKeys, k):
			doc[k] = renumber(doc[k], ids)
		case k == "previous_response_id":
			doc[k] = renumberID(doc[k], ids)
		}
	}
	return doc, true
}

// dataKeys hold what a tool was called with or returned (Anthropic
// tool_use input, Responses function_call_output output, arguments sent as
// an object): data, whose "id" fields are values that count, not ids the
// upstream made up.
var dataKeys = map[string]bool{"input": true, "output": true, "arguments": true}

func renumber(v any, ids map[string]string) any {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(v) {
			switch {
			case idKeys[k]:
				v[k] = renumberID(v[k], ids)
			case dataKeys[k]:
				// left as sent
			default:
				v[k] = renumber(v[k], ids)
			}
		}
	case []any:
		for i := range v {
			v[i] = renumber(v[i], ids)
		}
	}
	return v
}

// normNumbers rewrites, in place, every number in v in one form per value,
// so that 1, 1.0 and 1e0 (as different JSON encoders write them) compare
// equal. Integers too large for a float64 to hold exactly keep every digit.
func normNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = normNumbers(x)
		}
	case []any:
		for i, x := range v {
			v[i] = normNumbers(x)
		}
	case json.Number:
		return normNumber(v)
	}
	return v
}

func normNumber(n json.Number) json.Number {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return json.Number(strconv.FormatInt(i, 10)) // -0 becomes 0
		}
		return n // an integer beyond int64: as written
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return n
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return json.Number(strconv.FormatInt(int64(f), 10))
	}
	return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
}

func renumberID(v any, ids map[string]string) any {
	s, ok := v.(string)
	if !ok || s == "" {
		return v
	}
	n, seen := ids[s]
	if !seen {
		n = idPrefix + strconv.Itoa(len(ids)+1)
		ids[s] = n
	}
	return n
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// encodeCanonical encodes v with sorted keys (encoding/json sorts map keys)
// and numbers as normNumbers left them.
func encodeCanonical(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil // cannot happen for decoded JSON
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// request is a request body as matching sees it.
type request struct {
	json    bool
	doc     map[string]any // canonical document, when json
	key     string         // canonical body: the matching key with method and path
	history []string       // canonical form of each message or input item
	histKey string         // "messages" or "input", "" when the body has neither
}

func newRequest(body []byte, ignore map[string]bool) *request {
	doc, ok := parseBody(body, ignore)
	if !ok {
		return &request{key: string(body)}
	}
	r := &request{json: true, doc: doc, key: string(encodeCanonical(doc))}
	for _, k := range historyKeys {
		h, present := doc[k]
		if !present {
			continue
		}
		r.histKey = k
		switch h := h.(type) {
		case []any:
			for _, m := range h {
				r.history = append(r.history, string(encodeCanonical(m)))
			}
		default: // Responses accepts a plain string as the input
			r.history = []string{string(encodeCanonical(h))}
		}
		break
	}
	return r
}

func (r *request) model() (string, bool) {
	m, ok := r.doc["model"].(string)
	return m, ok
}

func (r *request) historyItem(i int) any {
	switch h := r.doc[r.histKey].(type) {
	case []any:
		return h[i]
	default:
		return h
	}
}

// noun names the history items: messages, or input items for Responses.
func (r *request) noun(n int) string {
	s := "message"
	if r.histKey == "input" {
		s = "input item"
	}
	if n != 1 {
		s += "s"
	}
	return s
}
