// Package gctune sets the garbage collector's target and soft memory
// limit for what a seam command does: read captures through, or proxy
// many streams, unless the user's GOGC or GOMEMLIMIT say otherwise.
package gctune

import "runtime/debug"

// BatchPercent is the garbage collector's target for the commands that
// read captures through (seam inspect, check, grep, stats, export),
// unless GOGC says otherwise. They hold a few exchanges at a time but allocate several times the capture's size on the way (chunk
// data, events, decoded payloads, reports), so the default target (100:
// collect each time the heap doubles a live heap of a few MB) collects
// hundreds of times a second and the collector takes a quarter of the
// CPU. At 400 it collects a fifth as often, for a heap of five times the
// live one: about 90 MB instead of 40 MB on a 560 MB capture, still
// bounded by the exchanges in flight, not the capture.
const BatchPercent = 400

// BatchMemoryLimit is the soft memory limit that goes with it, unless
// GOMEMLIMIT says otherwise: five times the live heap is cheap for the few
// MB an ordinary exchange holds, not for an exchange of hundreds of MB (a
// huge body, a long recording), whose heap the collector then keeps near
// this limit instead of at five times its size. It is below the 256 MB
// seam promises a reading command stays within on hostile input (the caps
// bound what is live; the limit bounds what the collector lets pile up when
// other work starves it of CPU: a deflate bomb's 95 MB peak grew to 344 MB
// on a loaded machine with a limit of 512 MiB).
const BatchMemoryLimit = 224 << 20

// Batch sets the garbage collector's target for a command that reads
// captures through, when the user has not set GOGC, and with it the soft
// memory limit, when the user has not set GOMEMLIMIT either (a GOGC of the
// user's own gets no limit it did not ask for).
func Batch(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(BatchPercent)
		if getenv("GOMEMLIMIT") == "" {
			debug.SetMemoryLimit(BatchMemoryLimit)
		}
	}
}

// Proxy has the garbage collector keep the heap within half again its live
// size (GOGC=50) while recording, unless the user set GOGC or GOMEMLIMIT: a
// proxy holding many streams allocates little per chunk, so collecting
// more often costs little, and memory is what it runs short of.
func Proxy(getenv func(string) string) {
	if getenv("GOGC") == "" && getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(50)
	}
}
