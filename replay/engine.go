package replay

import "github.com/seam-dev/seam/tape"

// RecordedEngine returns the engine a capture header records, to replay
// its exchanges through, reading the profile "import" that seam import
// wrote before imports named passthrough (an import has no client side;
// the engine only matters with another profile) as passthrough.
func RecordedEngine(h *tape.Header) tape.Engine {
	e := h.Engine
	if e.Profile == "import" {
		e.Profile = "passthrough"
	}
	return e
}
