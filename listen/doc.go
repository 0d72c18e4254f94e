// Package listen makes the HTTP servers seam listens with, for the
// recording proxy (seam record, and seam serve's forwarded misses) and for
// the mock upstream of seam serve alike: timeouts that never cut a live
// stream, HTTP/1.1 and h2c with prior knowledge (but for a forward
// proxy), a Host check that keeps a web page rebinding a DNS name to
// 127.0.0.1 from reading what seam answers, and a note when a client
// starts TLS on a plain-HTTP listener.
//
// It does not record (package record) or answer from captures (package
// replay): it wraps their handlers.
package listen
