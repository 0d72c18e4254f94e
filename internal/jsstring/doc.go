// Package jsstring does to Go strings what JavaScript's string methods do,
// where seam must reproduce a JavaScript client or proxy byte for byte:
// Trim is String.prototype.trim, Decode is TextDecoder's UTF-8. It knows nothing of streams or protocols;
// the callers (the shaping engine's tool-call XML, the client emulators,
// the detectors) decide when a JavaScript program would trim.
package jsstring
