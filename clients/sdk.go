package clients

import (
	"strconv"
	"strings"

	"github.com/seam-dev/seam/protocol"
)

// sdkResponses emulates the openai-node and openai-python Responses
// accumulators (docs/PROTOCOLS.md#responses) over the dispatched events: the result
// is the response.completed payload; without it there is none ("Didn't
// receive a response.completed event"). Both stop reading at [DONE] and
// fail on data that is not JSON or an object with a truthy "error";
// openai-node also throws on an SSE event named error and on an event of
// type error (ResponseStream), where openai-python reads on.
func sdkResponses(client string, events []protocol.Event, objs []protocol.ObjEvent) Result {
	r := Result{Client: client, Rule: "OpenAI SDK Responses stream: the final response is the one response.completed carries"}
	node := client == OpenAINode
	for i := range objs {
		e, p := &events[i], &objs[i]
		if e.Bare {
			continue
		}
		if node && e.Data == "[DONE]" || !node && strings.HasPrefix(e.Data, "[DONE]") {
			break
		}
		if !p.Valid {
			if node {
				r.Error = joinErr(r.Error, "SyntaxError: Error reading response: malformed server-sent event JSON.")
			} else {
				r.Error = joinErr(r.Error, "JSONDecodeError on event "+strconv.Itoa(e.Index))
			}
			return r
		}
		errv := protocol.JSONValue(p.Err.Result().Raw)
		switch {
		case node && e.Name == "error" && (!errv.Exists() || errv.IsNull()),
			node && !jsTruthy(errv) && p.Type == "error":
			// The event itself is the error (Stream for an event named
			// error, ResponseStream for a flat one of type error).
			r.Error = joinErr(r.Error, "APIError: "+nodeErrorMessage(protocol.JSONValue(e.Data)))
			return r
		case node && (e.Name == "error" || jsTruthy(errv)):
			r.Error = joinErr(r.Error, "APIError: "+nodeErrorMessage(errv))
			return r
		case !node && pyTruthy(errv):
			r.Error = joinErr(r.Error, "APIError: "+pythonErrorMessage(errv))
			return r
		}
		switch p.Type {
		case "response.completed":
			fin := protocol.ResponsesFinal(p.Response.Result())
			c := fin.Choices[0]
			r.Text, r.Reasoning, r.Refusal, r.ToolCalls, r.FinishReason = c.Text, c.Reasoning, c.Refusal, c.ToolCalls, c.FinishReason
			return r
		case "error":
			r.Error = joinErr(r.Error, protocol.ErrorText(p.Err.Result()))
		}
	}
	r.Error = joinErr(r.Error, "didn't receive a response.completed event")
	return r
}

// sdkAnthropic emulates the Anthropic SDKs (docs/PROTOCOLS.md#anthropic):
// events are routed by their SSE event name, so events without a known name are dropped; the
// unterminated last event is not dispatched (the caller passes only the
// dispatched events).
func sdkAnthropic(client string, events []protocol.Event, objs []protocol.ObjEvent) Result {
	named := make([]protocol.Event, 0, len(events))
	namedObjs := make([]protocol.ObjEvent, 0, len(events))
	for i, e := range events {
		if !e.Bare && (protocol.FromEventName(e.Name) == protocol.Anthropic || e.Name == "ping" || e.Name == "error") {
			named = append(named, e)
			namedObjs = append(namedObjs, objs[i])
		}
	}
	a := protocol.AssembleAnthropic(named, namedObjs)
	r := Result{Client: client, Rule: "Anthropic SDK MessageStream: events routed by their SSE event name, unnamed ones dropped", Error: a.Message.Error}
	c := a.Message.Choices[0]
	r.Text, r.Reasoning, r.ToolCalls, r.FinishReason = c.Text, c.Reasoning, c.ToolCalls, c.FinishReason
	if a.Terminal < 0 {
		r.Error = joinErr(r.Error, "stream ended without message_stop")
	}
	return r
}
