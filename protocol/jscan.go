package protocol

import "github.com/seam-dev/seam/internal/jsontext"

// jscan is the single-pass JSON reader of package jsontext with the two
// reads that give protocol's own types. The decoders of every event read
// through it (see jsontext's doc for why, and for which reader other code
// uses).
type jscan struct{ jsontext.Scanner }

// scanOf returns a reader at the start of data.
func scanOf(data string) jscan { return jscan{jsontext.NewScanner(data)} }

// jv reads a value and returns it as the reference decoder's mkjv
// (decode_ref_test.go) would.
func (sc *jscan) jv() Value {
	str, v, isStr := sc.Text()
	switch {
	case isStr:
		return Value{s: str, k: jString}
	case v.Kind == jsontext.Null:
		return Value{k: jNull}
	}
	return Value{s: v.Raw, k: Kind(v.Kind)}
}

// rawJSON reads any value and returns its text.
func (sc *jscan) rawJSON() RawJSON { return RawJSON(sc.Raw()) }
