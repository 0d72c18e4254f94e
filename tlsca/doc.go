// Package tlsca is seam's local certificate authority for recording HTTPS
// clients through a forward proxy: it creates the CA once in a directory the
// caller names, loads it on every later run, and mints on demand a leaf
// certificate for each host the proxy terminates TLS for, signed by the CA.
//
// The CA is a credential: whoever holds its key can impersonate any host to
// a client that trusts it. The key file is created 0600 in a 0700
// directory, is refused when other users can read it or another user owns
// it, and never leaves the package (no capture, no log). The directory is
// refused when another user (root aside) owns it or others can write in
// it: they could have put a CA of theirs there, or swap it later. A CA file that exists but cannot be read or
// parsed is an error naming the file, never silently replaced.
//
// A CA is valid for a year; [Rotate] replaces it in place, moving the old
// files aside, and [Authority.ExpiresWithin] tells when to.
//
// What a user does with the CA is text here too: how each client (Node,
// Python, Go, curl, VS Code, the Debian store) trusts it, what must trust
// it again after a rotation, and when to rotate.
//
// Keys are ECDSA P-256, so minting a leaf costs well under a millisecond;
// leaves are cached in memory per host and minted again before they expire.
package tlsca
