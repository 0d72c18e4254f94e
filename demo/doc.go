// Package demo is seam demo: seam end to end with no network and no API
// key. A mock upstream on 127.0.0.1 plays real recorded streams (package
// fixtures) at their recorded timing, each recorded request goes through
// the recording proxy (record.Recording) into a capture, which is read
// back and inspected; then the incident that started seam, the Obsidian
// XML tool call cut by the engine before its fix, is recorded, inspected
// and replayed offline with the fix on, and the difference shown.
//
// It writes its narrative to the writer it is given; it parses no flags
// (cmd/seam does).
package demo
