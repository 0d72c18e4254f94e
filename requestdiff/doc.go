// Package requestdiff compares the two request legs of a sandwich
// recording, the request the client sent and the one the proxy under test
// sent upstream, and says what the proxy changed: the path, the model, other
// parameters (under one name across protocols), the tools, and the message
// history aligned turn by turn, with whether the history was rewritten.
//
// Both legs are read through package request, so a proxy that converts one
// request protocol into another is compared by what it carried. It judges
// nothing: inspect turns a Diff into findings (req.history-rewritten,
// req.tools-changed, req.model-changed, req.params-changed), and the views
// draw its Lines.
package requestdiff
