package demo

import (
	"testing"

	"github.com/seam-dev/seam/tape"
)

// TestMockUpstream: a capture noted as the demo's is told apart from one
// with other notes or none.
func TestMockUpstream(t *testing.T) {
	if !MockUpstream([]tape.Note{{Text: "other"}, {Text: MockNote}}) || MockUpstream([]tape.Note{{Text: "other"}}) || MockUpstream(nil) {
		t.Error("MockUpstream misjudges")
	}
}
