package otlpexport

import (
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/seam-dev/seam/protocol"
)

// Operation names of the GenAI conventions.
const (
	OpChat            = "chat"
	OpGenerateContent = "generate_content"
	OpTextCompletion  = "text_completion"
	OpEmbeddings      = "embeddings"
)

// operationName returns gen_ai.operation.name for an exchange read as
// protocol p whose request went to endpoint (a URL path).
func operationName(p protocol.Protocol, endpoint string) string {
	switch {
	case strings.HasSuffix(endpoint, "/embeddings") || strings.HasSuffix(endpoint, "/embed") || strings.Contains(endpoint, ":embedContent") || strings.Contains(endpoint, ":batchEmbedContents"):
		return OpEmbeddings
	case strings.HasSuffix(endpoint, "/completions") && !strings.HasSuffix(endpoint, "/chat/completions"),
		strings.HasSuffix(endpoint, "/api/generate"):
		return OpTextCompletion
	case p == protocol.Gemini || strings.Contains(endpoint, ":generateContent") || strings.Contains(endpoint, ":streamGenerateContent"):
		return OpGenerateContent
	}
	return OpChat
}

// providerHosts maps an API host (or the suffix of one, starting with a
// dot) to gen_ai.provider.name, checked in order.
var providerHosts = []struct{ host, name string }{
	{"api.openai.com", "openai"},
	{".openai.azure.com", "azure.ai.openai"},
	{".services.ai.azure.com", "azure.ai.inference"},
	{".models.ai.azure.com", "azure.ai.inference"},
	{"api.anthropic.com", "anthropic"},
	{"generativelanguage.googleapis.com", "gcp.gemini"},
	{"aiplatform.googleapis.com", "gcp.vertex_ai"},
	{".aiplatform.googleapis.com", "gcp.vertex_ai"},
	{".amazonaws.com", "aws.bedrock"},
	{"api.mistral.ai", "mistral_ai"},
	{"api.groq.com", "groq"},
	{"api.cohere.com", "cohere"},
	{"api.cohere.ai", "cohere"},
	{"api.deepseek.com", "deepseek"},
	{"api.x.ai", "x_ai"},
	{"api.perplexity.ai", "perplexity"},
	{"openrouter.ai", "openrouter"},
	{"api.githubcopilot.com", "github_copilot"},
	{".githubcopilot.com", "github_copilot"},
}

// providerName returns gen_ai.provider.name: from the host the request
// went to when it is a known API's, else from the protocol (a request to
// a local proxy or a replay names no provider by its host).
func providerName(host string, p protocol.Protocol, endpoint string) string {
	host = strings.ToLower(host)
	for _, h := range providerHosts {
		if host == h.host || (strings.HasPrefix(h.host, ".") && strings.HasSuffix(host, h.host)) {
			return h.name
		}
	}
	switch p {
	case protocol.Anthropic:
		return "anthropic"
	case protocol.Gemini:
		if strings.Contains(endpoint, "/projects/") {
			return "gcp.vertex_ai"
		}
		return "gcp.gemini"
	case protocol.BedrockConverse, protocol.BedrockInvoke:
		return "aws.bedrock"
	case protocol.Cohere:
		return "cohere"
	case protocol.Ollama:
		return "ollama"
	case protocol.Chat, protocol.Responses:
		return "openai"
	}
	return "unknown"
}

// server splits a base URL into server.address and server.port (the
// scheme's default port when it names none); ok is false when base names
// no host.
func server(base string) (host string, port int, ok bool) {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return "", 0, false
	}
	host = u.Hostname()
	if p := u.Port(); p != "" {
		port, _ = strconv.Atoi(p)
	} else if u.Scheme == "http" {
		port = 80
	} else {
		port = 443
	}
	if ip := net.ParseIP(host); ip != nil {
		host = ip.String()
	}
	return host, port, true
}
