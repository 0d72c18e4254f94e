// Package session links the exchanges of agent sessions across captures:
// which earlier exchange a request's history extends, which session it
// belongs to and its turn there (Ref), each session's totals (Session),
// and the requests that rewrite the history they continue, leaving out or
// changing messages an earlier exchange had (Rewrite); Selected keeps the
// sessions a filter selected an exchange of.
//
// A Linker reads each exchange as a Turn: its request's history (History,
// from a request.Request), the reply its response gave (Reply, from a
// protocol.Message) and its figures. It keeps a tree of message
// fingerprints, never the requests' bodies. It neither reads captures nor
// reports findings: package inspect builds the Turns as it inspects and
// turns the rewrites into its session.turn-dropped and
// session.turn-edited findings.
package session
