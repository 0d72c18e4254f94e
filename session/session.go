package session

import (
	"path/filepath"
	"strconv"
	"time"
)

// ExchangeRef names one exchange of one capture.
type ExchangeRef struct {
	Capture string `json:"capture"`
	Ex      int    `json:"ex"`
}

// String renders the reference as "capture.ndjson#3".
func (r ExchangeRef) String() string { return filepath.Base(r.Capture) + "#" + strconv.Itoa(r.Ex) }

// Ref says where an exchange stands in its session.
type Ref struct {
	// ID is the session's id (Session.ID).
	ID string `json:"id"`
	// Turn is the exchange's place in the session, from 1, in the order
	// the exchanges were read.
	Turn int `json:"turn"`
	// Parent is the exchange whose history, request and reply, this
	// request extends (or, when it rewrites history, the one it shares
	// the most with).
	Parent *ExchangeRef `json:"parent,omitempty"`
	// Repeats is set when the request's history is exactly an earlier
	// exchange's: a retry (same session) or the conversation started
	// again (a new session, when the earlier one completed).
	Repeats *ExchangeRef `json:"repeats,omitempty"`
	// Messages is how many messages the request's history holds.
	Messages int `json:"messages"`
	// Continues is the previous_response_id of a Responses request whose
	// response is in none of the captures read.
	Continues string `json:"continues,omitempty"`
}

// Session is a conversation: exchanges whose request histories extend one
// another, across the captures read, with its totals.
type Session struct {
	// ID is short and stable: the same captures give the same ids.
	ID string `json:"id"`
	// Exchanges lists the session's exchanges in the order they were read
	// (their turns); the first one started the session.
	Exchanges []ExchangeRef `json:"exchanges"`
	Turns     int           `json:"turns"`
	// ToolCalls counts the tool calls the replies made.
	ToolCalls int `json:"tool_calls"`
	// TokensIn and TokensOut add up the usage the turns report;
	// UsageTurns counts the turns that report usage.
	TokensIn   int `json:"tokens_in"`
	TokensOut  int `json:"tokens_out"`
	UsageTurns int `json:"usage_turns"`
	// Start is when its first request was sent and End when its last
	// response ended, from the capture headers' start times; zero when
	// the captures do not say (imports). Dur is End - Start, -1 unknown.
	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end,omitzero"`
	Dur   int64     `json:"duration_ns"`
	// Failed counts turns whose response did not end in success.
	Failed int `json:"failed"`
	// Rewrites counts the turns whose request rewrote the history instead
	// of extending it (Rewrite).
	Rewrites int `json:"rewrites"`
	// Models lists the models the turns asked for, in first-use order.
	Models []string `json:"models,omitempty"`
}

// Turn is what linking reads of one exchange.
type Turn struct {
	Ref ExchangeRef
	// History is its request's history (History), PrevResponse the
	// response a Responses request continues (previous_response_id).
	History      []Message
	PrevResponse string
	// Reply is the assistant message its response gave (Reply), and
	// ResponseID the response's id, which a later request's
	// previous_response_id names.
	Reply      []Message
	ResponseID string
	// OK is set when the response ended in success with a reply.
	OK    bool
	Model string
	// Totals is what the turn adds to its session's totals.
	Totals Totals
	// Start and End are wall-clock times, zero when unknown.
	Start, End time.Time
}

// Totals is what one turn adds to its session.
type Totals struct {
	ToolCalls, TokensIn, TokensOut int
	// Usage is set when the turn reports usage, Failed when its response
	// did not end in success.
	Usage, Failed bool
}

// Rewrite is a request found rewriting the history it continues:
// leaving out messages of it (Dropped) or changing, inserting or moving
// one.
type Rewrite struct {
	Dropped bool
	// Message says what was left out or changed, and which exchange had
	// it; Evidence is an excerpt of the message concerned.
	Message, Evidence string
}

// Selected keeps the sessions of ss with an exchange selected reports
// true for, in their order: a filter that selects no exchange of a
// session leaves the session out.
func Selected(ss []*Session, selected func(ExchangeRef) bool) []*Session {
	var out []*Session
	for _, s := range ss {
		for _, r := range s.Exchanges {
			if selected(r) {
				out = append(out, s)
				break
			}
		}
	}
	return out
}
