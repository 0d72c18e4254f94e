// Package replay plays captures back: offline through the shaping engine, and
// as a mock upstream (an http.Handler) that answers requests from recorded
// exchanges with their recorded bytes, boundaries and timing, and a Tally of
// what that mock answered.
package replay
