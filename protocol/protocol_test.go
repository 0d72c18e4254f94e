package protocol

import "testing"

// TestModelFromURL: Bedrock and Gemini name the model in the path (Bedrock's
// colon escaped), the others in the body.
func TestModelFromURL(t *testing.T) {
	for url, want := range map[string]string{
		"/model/anthropic.claude-3-sonnet-20240229-v1%3A0/invoke-with-response-stream":                       "anthropic.claude-3-sonnet-20240229-v1:0",
		"/model/amazon.titan-text-express-v1/converse-stream":                                                "amazon.titan-text-express-v1",
		"/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse":                                      "gemini-2.0-flash",
		"/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro:streamGenerateContent": "gemini-2.5-pro",
		"/v1/chat/completions": "",
		"/api/chat":            "",
	} {
		if got := ModelFromURL(url); got != want {
			t.Errorf("ModelFromURL(%q) = %q, want %q", url, got, want)
		}
	}
}
