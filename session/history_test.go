package session

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestSessionsKeepNoBody: what the session tree keeps of a message (its
// role, excerpt and name) is a copy, never a piece of the request body it
// was read from, which would keep every body alive as long as the
// sessions: stats over a gigabyte of captures would hold most of it.
// Sixteen conversations of 2 MB prompts leave the tree holding kilobytes.
func TestSessionsKeepNoBody(t *testing.T) {
	lk := NewLinker()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range 16 {
		l := newChatLoop(fmt.Sprintf("big-%d.ndjson", i), strings.Repeat(string(rune('a'+i)), 2<<20))
		lk.Link(l.step(1))
		lk.Link(l.step(2))
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	if len(lk.List()) != 16 {
		t.Fatalf("%d sessions", len(lk.List()))
	}
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 8<<20 {
		t.Errorf("the sessions of 16 conversations with 2 MB prompts hold %d MB", grown>>20)
	}
	runtime.KeepAlive(lk)
}
