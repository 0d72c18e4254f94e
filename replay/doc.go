// Package replay plays captures back: offline through the shaping engine, and
// as a mock upstream (an http.Handler) that answers requests from recorded
// exchanges with their recorded bytes, boundaries and timing; what a run of
// that mock does in each mode (PlanServe: replayed, forwarded, recorded);
// and a Tally of what it answered.
package replay
