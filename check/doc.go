// Package check is seam check's golden model, callable from Go tests: for
// every fixture capture it rebuilds the engine its header records,
// replays the recorded upstream chunks through it and compares the client
// stream produced with the recorded one frame by frame (replay.Exchange);
// then it inspects the replayed exchange and compares its warn and error
// findings with the golden beside the fixture, <fixture>.expect.json, or
// with Options.Update writes that golden. With Options.Faults it replays
// each exchange again under faults that only re-cut or move the chunks,
// and checks that nothing a client assembles, and no finding, changes.
//
// Gate is the same verdict for seam inspect: whether a finding reached
// --fail-on, and a JUnit case per exchange (InspectCases).
//
// It returns what differs, per fixture, as lines a person reads; it does
// not print them, parse flags or choose an exit status (cmd/seam does),
// and it writes nothing but goldens.
package check
