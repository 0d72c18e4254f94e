package session

import "testing"

// TestSelected: a session stays when any of its exchanges is selected,
// in its order; one with none selected is left out.
func TestSelected(t *testing.T) {
	a := &Session{ID: "a", Exchanges: []ExchangeRef{{Capture: "c", Ex: 1}, {Capture: "c", Ex: 3}}}
	b := &Session{ID: "b", Exchanges: []ExchangeRef{{Capture: "c", Ex: 2}}}
	d := &Session{ID: "d", Exchanges: []ExchangeRef{{Capture: "d", Ex: 3}}}
	got := Selected([]*Session{a, b, d}, func(r ExchangeRef) bool { return r.Ex == 3 })
	if len(got) != 2 || got[0] != a || got[1] != d {
		t.Errorf("selected %v", got)
	}
	if got := Selected([]*Session{a}, func(ExchangeRef) bool { return false }); got != nil {
		t.Errorf("none selected: %v", got)
	}
}
