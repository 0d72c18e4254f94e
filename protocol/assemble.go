package protocol

import (
	"fmt"
	"strings"

	"github.com/seam-dev/seam/internal/excerpt"
	"github.com/seam-dev/seam/tape"
	"github.com/tidwall/gjson"
)

// Anomaly is something an assembler noticed while following a protocol's
// rules; the detector with the same id turns it into a finding.
type Anomaly struct {
	// ID is the detector id, e.g. "stream.no-terminal".
	ID string
	// Event is the index of the event it points at, -1 for none.
	Event int
	// Msg is a one-line description and Evidence a short excerpt.
	Msg      string
	Evidence string
}

// Assembly is the result of assembling one side.
type Assembly struct {
	// Message is the assembled message.
	Message Message
	// Anomalies are what the assembler noticed, in event order.
	Anomalies []Anomaly
	// Terminal is the index of the terminal event ([DONE], message_stop,
	// response.completed/failed/incomplete), or -1.
	Terminal int
	// More counts, per id, the anomalies past MaxPerID that were only
	// counted, not listed; a report says how many there were.
	More map[string]int
	// seen counts the anomalies recorded per id, for flagOnce and the cap.
	seen map[string]int
}

// MaxPerID is how many anomalies of one id a side lists; the rest are
// counted in More, so a hostile stream (a million events after [DONE])
// cannot grow the report, or the memory holding it, with every event.
const MaxPerID = 50

func newAssembly(p Protocol) *Assembly {
	return &Assembly{Message: Message{Protocol: p}, Terminal: -1}
}

func (a *Assembly) flag(id string, ev int, evidence string, format string, args ...any) {
	if a.seen == nil {
		a.seen = map[string]int{}
	}
	if a.seen[id] >= MaxPerID {
		if a.More == nil {
			a.More = map[string]int{}
		}
		a.More[id]++
		return
	}
	a.seen[id]++
	a.Anomalies = append(a.Anomalies, Anomaly{ID: id, Event: ev, Msg: fmt.Sprintf(format, args...), Evidence: evidence})
}

// flagOnce records an anomaly only if none with its id was recorded yet.
func (a *Assembly) flagOnce(id string, ev int, evidence string, format string, args ...any) {
	if a.seen[id] == 0 {
		a.flag(id, ev, evidence, format, args...)
	}
}

// end marks event ev as the end of the stream unless an earlier event
// was, and reports whether it is.
func (a *Assembly) end(ev int) bool {
	if a.Terminal >= 0 {
		return false
	}
	a.Terminal = ev
	return true
}

// noTerminal flags a stream of n events that never reached its end, at its
// last event.
func (a *Assembly) noTerminal(n int, msg string) {
	if a.Terminal < 0 && n > 0 {
		a.flag("stream.no-terminal", n-1, "", "%s", msg)
	}
}

// inBandError records err, the error that event ev (its data, data)
// carries, as the message's error, and flags it: "what: err".
func (a *Assembly) inBandError(ev int, data, err, what string) {
	a.Message.Error = err
	a.Message.ErrorBorn.Add(ev)
	a.flag("stream.error-event", ev, excerpt.Clip(data, 160), "%s: %s", what, err)
}

// Assemble runs the protocol's assembly rules over a side's events.
func Assemble(p Protocol, se *Side) *Assembly {
	a := assemble(p, se)
	if a.Message.Choices == nil {
		a.Message.Choices = []Choice{}
	}
	return a
}

func assemble(p Protocol, se *Side) *Assembly {
	switch p {
	case Chat:
		return assembleChat(se)
	case Responses:
		return assembleResponses(se)
	case Anthropic:
		return AssembleAnthropic(se.Events, se.ObjEvents())
	case Gemini:
		return assembleGemini(se)
	case BedrockConverse:
		return assembleConverse(se)
	case BedrockInvoke:
		return assembleInvoke(se)
	case Cohere:
		return assembleCohere(se)
	case Ollama:
		return assembleOllama(se)
	}
	return newAssembly(Unknown)
}

// AssembleBody assembles a non-stream JSON body (chat.completion, a
// Responses response object, an Anthropic message, a Gemini
// GenerateContentResponse, an Ollama response, a Cohere v2 chat response,
// a Bedrock Converse response). The result's Final is the message itself,
// as the body is what the server claims.
func AssembleBody(p Protocol, body string) *Assembly {
	a := newAssembly(p)
	if !gjson.Valid(body) {
		a.flag("payload.invalid-json", -1, excerpt.Clip(body, 120), "response body is not valid JSON")
		return a
	}
	r := gjson.Parse(body)
	if e := r.Get("error"); e.Exists() {
		a.Message.Error = ErrorText(e)
	}
	switch p {
	case Gemini, Ollama:
		// One chunk of the stream is the whole answer.
		one := &Side{Events: []Event{{Data: body, End: int64(len(body)), Terminated: true}}, Chunks: []tape.Chunk{{}}}
		a = Assemble(p, one)
		if a.Message.Error != "" {
			a.Anomalies = nil // the HTTP status finding reports it
		}
		for i := range a.Anomalies {
			a.Anomalies[i].Event = -1
		}
	case Cohere:
		cohereBody(a, r)
	case BedrockConverse:
		converseBody(a, r)
	case Chat:
		chatBody(a, r)
	case Responses:
		a.Message = *ResponsesFinal(r)
	case Anthropic:
		anthropicBody(a, r)
	}
	a.Message.Status = "body"
	if a.Message.Choices == nil {
		a.Message.Choices = []Choice{}
	}
	final := a.Message
	final.Final = nil
	a.Message.Final = &final
	return a
}

// ErrorText renders an error object (or string) of any of the protocols.
func ErrorText(e gjson.Result) string {
	return errorText(e, []string{"type", "code", "message"}, ": ")
}

// errorText renders an error string as it is, and an error object as the
// values of its members keys, joined by sep (its JSON, clipped, when it has
// none of them).
func errorText(e gjson.Result, keys []string, sep string) string {
	if e.Type == gjson.String {
		return e.String()
	}
	var parts []string
	for _, k := range keys {
		if v := e.Get(k).String(); v != "" {
			parts = append(parts, v)
		}
	}
	if len(parts) == 0 {
		return excerpt.Clip(e.Raw, 200)
	}
	return strings.Join(parts, sep)
}
