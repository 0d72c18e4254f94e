// Package wsframe reads recorded WebSocket byte streams (RFC 6455): a
// [Splitter] finds frame boundaries in a stream arriving in pieces, so a
// recorder can store one chunk per frame, and [Decode] turns one
// direction's bytes into messages — unmasked, fragments joined,
// permessage-deflate (RFC 7692) inflated with or without context takeover,
// close codes parsed — with each protocol violation reported at its byte
// offset. Frame headers are read by github.com/gobwas/ws, a maintained frame
// library; this package adds only the bookkeeping a recording needs.
package wsframe
