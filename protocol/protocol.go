package protocol

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/seam-dev/seam/internal/jsontext"
	"github.com/tidwall/gjson"
)

// Protocol names a streaming wire protocol.
type Protocol string

// The protocols this package assembles.
const (
	// Unknown is a stream whose protocol could not be told.
	Unknown Protocol = "unknown"
	// Chat is OpenAI Chat Completions (chat.completion.chunk).
	Chat Protocol = "openai-chat"
	// Responses is the OpenAI Responses API.
	Responses Protocol = "openai-responses"
	// Anthropic is the Anthropic Messages API.
	Anthropic Protocol = "anthropic-messages"
	// Gemini is Google's streamGenerateContent, on the Gemini API and on
	// Vertex AI, as SSE (alt=sse) or as a streamed JSON array.
	Gemini Protocol = "gemini"
	// BedrockConverse is AWS Bedrock's ConverseStream.
	BedrockConverse Protocol = "bedrock-converse"
	// BedrockInvoke is AWS Bedrock's InvokeModelWithResponseStream: each
	// chunk carries the model's own streaming event in base64.
	BedrockInvoke Protocol = "bedrock-invoke"
	// Cohere is Cohere's v2 chat stream.
	Cohere Protocol = "cohere-v2"
	// Ollama is Ollama's native /api/chat and /api/generate NDJSON stream
	// (its /v1 endpoints speak Chat).
	Ollama Protocol = "ollama"
)

// Protocols lists the protocols this package assembles, in the order
// --protocol help shows them (the families table's).
func Protocols() []Protocol {
	ps := make([]Protocol, len(families))
	for i, f := range families {
		ps[i] = f.proto
	}
	return ps
}

// Rule names the assembly rule this package follows for the protocol, in
// plain words, and the official client whose behaviour it matches.
func (p Protocol) Rule() string {
	if f := familyOf(p); f != nil {
		return f.rule
	}
	return "none: the protocol is not recognised"
}

// ParseName parses a protocol name as given to --protocol. It accepts
// the canonical names and the short forms chat, responses, anthropic (or
// messages), vertex, converse, invoke and cohere (each family's aliases).
// The empty string and "auto" give Unknown, meaning detect.
func ParseName(s string) (Protocol, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	if name == "" || name == "auto" {
		return Unknown, nil
	}
	for _, f := range families {
		if slices.Contains(f.aliases, name) {
			return f.proto, nil
		}
	}
	names := make([]string, 0, len(families))
	for _, p := range Protocols() {
		names = append(names, string(p))
	}
	return Unknown, fmt.Errorf("unknown protocol %q (want one of %s)", s, strings.Join(names, ", "))
}

// Detect tells the protocol of a stream from its events (event
// names and payload shapes) and, when they say nothing, from the request
// URL. The events come first because a proxy may answer in another protocol
// than the URL names: a Responses endpoint served from a Chat Completions
// upstream has Chat chunks on its upstream side and Responses events on its
// client side.
func Detect(url string, events []Event) Protocol {
	for i := range min(len(events), detectWithin) {
		if e := &events[i]; !e.Bare {
			if p := eventProtocol(e.Name, e.MessageType, e.Data); p != Unknown {
				return p
			}
		}
	}
	return FromURL(url)
}

// detectWithin is how many leading events Detect (and a Watch) look at to
// tell the protocol: a stream that has not said it by then is told by its
// URL, and a Watch on the proxy's path stops parsing payloads for it.
const detectWithin = 21

// eventProtocol tells the protocol from one event: its SSE name or
// event-stream :event-type, its :message-type, and its payload. An
// exception or error message says nothing. The payload is read only when
// the name says nothing, and only a JSON object or array can say anything
// (a []byte payload is copied for those alone).
func eventProtocol[S ~string | ~[]byte](name, messageType string, data S) Protocol {
	switch {
	case messageType == "exception" || messageType == "error":
		return Unknown
	case name == "chunk" && messageType != "":
		return BedrockInvoke
	}
	if p := FromEventName(name); p != Unknown {
		return p
	}
	if i := jsontext.SkipSpace(data, 0); i < len(data) && (data[i] == '{' || data[i] == '[') {
		return FromPayload(string(data))
	}
	return Unknown
}

// FromURL tells the protocol from the request path.
func FromURL(url string) Protocol {
	path, _, _ := strings.Cut(url, "?")
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return Chat
	case strings.HasSuffix(path, "/responses"):
		return Responses
	case strings.HasSuffix(path, "/messages"):
		return Anthropic
	case strings.Contains(path, ":streamGenerateContent"), strings.Contains(path, ":generateContent"):
		return Gemini
	case strings.HasSuffix(path, "/converse-stream"), strings.HasSuffix(path, "/converse"):
		return BedrockConverse
	case strings.HasSuffix(path, "/invoke-with-response-stream"), strings.HasSuffix(path, "/invoke"):
		return BedrockInvoke
	case strings.HasSuffix(path, "/v2/chat"):
		return Cohere
	case strings.HasSuffix(path, "/api/chat"), strings.HasSuffix(path, "/api/generate"):
		return Ollama
	}
	return Unknown
}

// ModelFromURL returns the model a request names in its path, as Bedrock
// (/model/{id}/converse-stream, …/invoke-with-response-stream) and Gemini
// and Vertex AI (…/models/{id}:streamGenerateContent) do, its escapes
// decoded; "" when the path names none.
func ModelFromURL(rawURL string) string {
	path, _, _ := strings.Cut(rawURL, "?")
	var id string
	switch p := FromURL(path); {
	case p == BedrockConverse || p == BedrockInvoke:
		i := strings.LastIndex(path, "/model/")
		if i < 0 {
			return ""
		}
		id, _, _ = strings.Cut(path[i+len("/model/"):], "/")
	case p == Gemini:
		i := strings.LastIndex(path, "/models/")
		if i < 0 {
			return ""
		}
		id, _, _ = strings.Cut(path[i+len("/models/"):], ":")
	}
	if m, err := url.PathUnescape(id); err == nil {
		return m
	}
	return id
}

// FromEventName tells the protocol from an SSE event name or an
// event-stream :event-type.
func FromEventName(name string) Protocol {
	switch {
	case strings.HasPrefix(name, "response."):
		return Responses
	case name == "message_start", strings.HasPrefix(name, "content_block_"), name == "message_delta", name == "message_stop":
		return Anthropic
	case name == "messageStart", name == "contentBlockStart", name == "contentBlockDelta", name == "contentBlockStop",
		name == "messageStop", name == "metadata":
		return BedrockConverse
	case name == "message-start", name == "message-end", strings.HasPrefix(name, "content-"),
		strings.HasPrefix(name, "tool-call-"), name == "tool-plan-delta", strings.HasPrefix(name, "citation-"):
		return Cohere
	}
	return Unknown
}

// FromPayload tells the protocol from one JSON payload (a stream event
// or a whole non-stream body).
func FromPayload(data string) Protocol {
	if !gjson.Valid(data) {
		return Unknown
	}
	r := gjson.Parse(data)
	var f [9]gjson.Result
	jsontext.GetFields(r, []string{"type", "object", "content", "choices", "candidates", "promptFeedback", "done", "bytes", "usageMetadata"}, f[:])
	typ, obj := f[0].String(), f[1].String()
	switch {
	case strings.HasPrefix(obj, "chat.completion"):
		return Chat
	case obj == "response", strings.HasPrefix(typ, "response."):
		return Responses
	case typ == "message" && f[2].IsArray():
		return Anthropic
	case typ != "" && (FromEventName(typ) == Anthropic || FromEventName(typ) == Cohere):
		return FromEventName(typ)
	case f[3].IsArray():
		return Chat
	case f[4].Exists(), f[5].Exists(), f[8].Exists():
		return Gemini
	case f[6].IsBool() && r.Get("model").Exists():
		return Ollama
	case f[7].Type == gjson.String:
		return BedrockInvoke
	}
	return Unknown
}
