package inspect_test

import (
	"github.com/seam-dev/seam/inspect"
	"github.com/seam-dev/seam/textreport"
)

// The tests of package inspect that read a report's text render it with
// package textreport, which they cannot import themselves (it imports
// inspect); see WriteText in helpers_test.go.
func init() {
	inspect.WriteText = textreport.Write
}
