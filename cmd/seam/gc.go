package main

import "runtime/debug"

// batchGCPercent is the garbage collector's target for the commands that
// read captures through (inspect, check and those reading through
// inspectInputs), unless GOGC says otherwise. They hold a few exchanges at
// a time but allocate several times the capture's size on the way (chunk
// data, events, decoded payloads, reports), so the default target (100:
// collect each time the heap doubles a live heap of a few MB) collects
// hundreds of times a second and the collector takes a quarter of the
// CPU. At 400 it collects a fifth as often, for a heap of five times the
// live one: about 90 MB instead of 40 MB on a 560 MB capture, still
// bounded by the exchanges in flight, not the capture.
const batchGCPercent = 400

// batchGC sets the garbage collector's target for a command that reads
// captures through, when the user has not set GOGC.
func batchGC(e *env) {
	if e.getenv("GOGC") == "" {
		debug.SetGCPercent(batchGCPercent)
	}
}
