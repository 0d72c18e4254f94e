package protocol

import "slices"

// SameToolCalls compares what tool calls say (index, id, name, arguments,
// form and signature), not the events they were born at.
func SameToolCalls(a, b []ToolCall) bool {
	return slices.EqualFunc(a, b, func(x, y ToolCall) bool {
		x.Born, y.Born = Born{}, Born{}
		return x == y
	})
}
