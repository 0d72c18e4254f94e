// Package jsonvalue compares and prints JSON values as a reader of their
// meaning sees them: Decode reads one value with its numbers kept as
// written, Equal compares two by value (1.0 equals 1, key order does not
// matter; loosely, scalars by their text, as XML carries them), SameText
// compares two texts so, Encode prints a value compactly with sorted
// keys, and Canonical gives a text as Encode would print it, recognising
// one already so written without decoding it. It is built on encoding/json and meant for values read once per
// tool call or request, not for per-event paths (those read with gjson
// or seam's own scanners), and it does not validate or index documents.
package jsonvalue
