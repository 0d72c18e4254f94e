// Package gateway is the code under test of this example: a small LLM
// gateway that forwards OpenAI Chat Completions requests to an upstream,
// swapping a model alias for the real model name, and relays the streamed
// answer to its client event by event.
package gateway

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
)

// Options configure a gateway.
type Options struct {
	// Models maps the model names clients ask for to the upstream's.
	Models map[string]string
	// OneToolCall keeps, in each streamed chunk, the deltas of tool call
	// 0 only, as gateways written before parallel tool calls did. It is
	// the bug the example's tests catch: a model that calls two tools at
	// once loses the second call on its way to the client.
	OneToolCall bool
}

// New returns a gateway forwarding to upstream (a base URL such as
// https://api.openai.com) with client.
func New(upstream string, client *http.Client, o Options) http.Handler {
	return &gateway{upstream: strings.TrimSuffix(upstream, "/"), client: client, o: o}
}

type gateway struct {
	upstream string
	client   *http.Client
	o        Options
}

func (g *gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 16<<20))
	if err != nil {
		http.Error(w, "read request: "+err.Error(), http.StatusBadRequest)
		return
	}
	body = g.alias(body)
	req, err := http.NewRequestWithContext(r.Context(), r.Method, g.upstream+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	for _, h := range []string{"Authorization", "Content-Type", "Accept"} {
		if v := r.Header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	resp, err := g.client.Do(req)
	if err != nil {
		http.Error(w, "upstream: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for _, h := range []string{"Content-Type", "Retry-After", "X-Request-Id"} {
		if v := resp.Header.Get(h); v != "" {
			w.Header().Set(h, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	g.relay(w, resp.Body)
}

// alias swaps a model alias in a JSON request body for the real name.
func (g *gateway) alias(body []byte) []byte {
	var req map[string]json.RawMessage
	if json.Unmarshal(body, &req) != nil {
		return body
	}
	var model string
	if json.Unmarshal(req["model"], &model) != nil || g.o.Models[model] == "" {
		return body
	}
	req["model"], _ = json.Marshal(g.o.Models[model])
	out, err := json.Marshal(req)
	if err != nil {
		return body
	}
	return out
}

// relay copies the body to w event by event (an event ends at a blank
// line), flushing each.
func (g *gateway) relay(w http.ResponseWriter, body io.Reader) {
	rc := http.NewResponseController(w)
	br := bufio.NewReader(body)
	var event []byte
	for {
		line, err := br.ReadBytes('\n')
		event = append(event, line...)
		if len(event) > 0 && (bytes.Equal(bytes.TrimRight(line, "\r"), []byte("\n")) || err != nil) {
			if g.o.OneToolCall {
				event = oneToolCall(event)
			}
			if len(event) > 0 {
				if _, werr := w.Write(event); werr != nil {
					return
				}
				rc.Flush()
			}
			event = nil
		}
		if errors.Is(err, io.EOF) || err != nil {
			return
		}
	}
}

// oneToolCall drops an event that carries the deltas of a tool call other
// than the first (the bug).
func oneToolCall(event []byte) []byte {
	data, ok := bytes.CutPrefix(bytes.TrimSpace(event), []byte("data: "))
	if !ok {
		return event
	}
	var chunk struct {
		Choices []struct {
			Delta struct {
				ToolCalls []struct {
					Index int `json:"index"`
				} `json:"tool_calls"`
			} `json:"delta"`
		} `json:"choices"`
	}
	if json.Unmarshal(data, &chunk) != nil {
		return event
	}
	for _, c := range chunk.Choices {
		for _, tc := range c.Delta.ToolCalls {
			if tc.Index > 0 {
				return nil
			}
		}
	}
	return event
}
