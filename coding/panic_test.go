package coding

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"
)

// TestPanicReachesCaller: emit runs on the Decoder's own goroutine, which
// nothing else can recover; a panic there (a watch choking on what it was
// given) is raised again on the goroutine that called Write, where the
// recorder's guard recovers it, instead of ending the process.
func TestPanicReachesCaller(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("data: hostile\n\n"))
	zw.Close()
	d, err := NewDecoder("gzip")
	if err != nil {
		t.Fatal(err)
	}
	emit := func(p []byte) {
		if strings.Contains(string(p), "hostile") {
			panic("emit choked")
		}
	}
	// The decompressor may hold the output until the end of the body: the
	// panic comes out of Write or of Close, whichever emitted.
	got := func() (v any) {
		defer func() { v = recover() }()
		d.Write(gz.Bytes(), emit)
		d.Close(emit)
		return nil
	}()
	if got != "emit choked" {
		t.Fatalf("recovered %v, want the emit panic raised on the caller's goroutine", got)
	}
	if err := d.Close(emit); err == nil || !strings.Contains(err.Error(), "panic") {
		t.Errorf("Close after the panic: %v", err)
	}
}
