package protocol

import (
	"fmt"
	"strings"

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
)

// ParseName parses a protocol name as given to --protocol. It accepts
// the canonical names and the short forms chat, responses and anthropic
// (or messages). The empty string and "auto" give Unknown, meaning detect.
func ParseName(s string) (Protocol, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return Unknown, nil
	case "chat", "openai-chat", "chat-completions", "completions":
		return Chat, nil
	case "responses", "openai-responses":
		return Responses, nil
	case "anthropic", "messages", "anthropic-messages":
		return Anthropic, nil
	}
	return Unknown, fmt.Errorf("unknown protocol %q (want chat, responses or anthropic)", s)
}

// Detect tells the protocol of a stream from its events (event
// names and payload shapes) and, when they say nothing, from the request
// URL. The events come first because a proxy may answer in another protocol
// than the URL names: a Responses endpoint served from a Chat Completions
// upstream has Chat chunks on its upstream side and Responses events on its
// client side.
func Detect(url string, events []Event) Protocol {
	for i, e := range events {
		if i > 20 {
			break
		}
		if p := FromEventName(e.Name); p != Unknown {
			return p
		}
		if p := FromPayload(e.Data); p != Unknown {
			return p
		}
	}
	return FromURL(url)
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
	}
	return Unknown
}

// FromEventName tells the protocol from an SSE event name.
func FromEventName(name string) Protocol {
	switch {
	case strings.HasPrefix(name, "response."):
		return Responses
	case name == "message_start", strings.HasPrefix(name, "content_block_"), name == "message_delta", name == "message_stop":
		return Anthropic
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
	typ := r.Get("type").String()
	obj := r.Get("object").String()
	switch {
	case strings.HasPrefix(obj, "chat.completion"):
		return Chat
	case obj == "response", strings.HasPrefix(typ, "response."):
		return Responses
	case typ == "message" && r.Get("content").IsArray(), FromEventName(typ) != Unknown:
		return Anthropic
	case r.Get("choices").IsArray():
		return Chat
	}
	return Unknown
}
