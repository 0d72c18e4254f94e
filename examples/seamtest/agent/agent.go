// Package agent is a client of this example: it sends a Chat Completions
// request with stream set and assembles the streamed answer, text and
// tool calls, as an agent loop does before it runs the tools.
package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// ToolCall is one tool call of the answer, its arguments assembled.
type ToolCall struct {
	ID, Name, Arguments string
}

// Answer is the assembled answer.
type Answer struct {
	Text         string
	ToolCalls    []ToolCall
	FinishReason string
}

// StatusError is a non-2xx answer.
type StatusError struct {
	Status     int
	RetryAfter string
	Body       string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("chat completions: status %d: %s", e.Status, e.Body)
}

// Complete posts body (a Chat Completions request with "stream": true) to
// baseURL + "/v1/chat/completions" and assembles the answer.
func Complete(ctx context.Context, client *http.Client, baseURL string, body []byte) (*Answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/v1/chat/completions", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer sk-example-not-a-key")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return nil, &StatusError{Status: resp.StatusCode, RetryAfter: resp.Header.Get("Retry-After"), Body: string(b)}
	}
	a := &Answer{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		if err := a.add(data); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read stream: %w", err)
	}
	return a, nil
}

// add folds one chunk into the answer.
func (a *Answer) add(data string) error {
	var chunk struct {
		Choices []struct {
			Delta struct {
				Content   string `json:"content"`
				ToolCalls []struct {
					Index    int    `json:"index"`
					ID       string `json:"id"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"delta"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.Unmarshal([]byte(data), &chunk); err != nil {
		return fmt.Errorf("chunk %q: %w", data, err)
	}
	for _, c := range chunk.Choices {
		a.Text += c.Delta.Content
		for _, tc := range c.Delta.ToolCalls {
			for len(a.ToolCalls) <= tc.Index {
				a.ToolCalls = append(a.ToolCalls, ToolCall{})
			}
			t := &a.ToolCalls[tc.Index]
			if tc.ID != "" {
				t.ID = tc.ID
			}
			t.Name += tc.Function.Name
			t.Arguments += tc.Function.Arguments
		}
		if c.FinishReason != "" {
			a.FinishReason = c.FinishReason
		}
	}
	return nil
}
