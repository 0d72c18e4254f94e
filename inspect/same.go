package inspect

import (
	"reflect"
	"slices"

	"github.com/seam-dev/seam/protocol"
)

// SameAssembly reports whether two sides assembled to the same message:
// the same choices, usage, status and error, wherever their events were.
func SameAssembly(a, b *protocol.Message) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Status == b.Status && a.Error == b.Error && reflect.DeepEqual(a.Usage, b.Usage) && sameChoices(a.Choices, b.Choices)
}

// sameChoices compares what each choice says, not where its events were.
func sameChoices(a, b []protocol.Choice) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Index != y.Index || x.Role != y.Role || x.Text != y.Text || x.Reasoning != y.Reasoning ||
			x.Refusal != y.Refusal || x.FinishReason != y.FinishReason || !protocol.SameToolCalls(x.ToolCalls, y.ToolCalls) ||
			!slices.EqualFunc(x.ServerTools, y.ServerTools, sameServerTool) {
			return false
		}
	}
	return true
}

// sameServerTool compares what two server tool calls say, not the events
// they were born at.
func sameServerTool(x, y protocol.ServerTool) bool {
	x.Born, y.Born = protocol.Born{}, protocol.Born{}
	return x == y
}
