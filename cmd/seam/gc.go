package main

import "github.com/seam-dev/seam/internal/gctune"

// batchGC tunes the collector for a command that reads captures through
// (gctune.Batch).
func batchGC(e *env) { gctune.Batch(e.getenv) }

// tuneGC tunes the collector for a command that proxies streams
// (gctune.Proxy).
func tuneGC(e *env) { gctune.Proxy(e.getenv) }
