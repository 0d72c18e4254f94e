package shape

import (
	"fmt"

	"github.com/seam-dev/seam/tape"
)

// Exchange is what an engine is told about the exchange it shapes, known once
// the upstream's response headers have arrived.
type Exchange struct {
	Method      string // request method
	Path        string // request path, e.g. /v1/chat/completions
	Status      int    // upstream status code
	ContentType string // upstream response Content-Type
}

// DefaultProfile is the profile used when none is given: the identity engine.
const DefaultProfile = "passthrough"

// New builds the engine described by cfg for one exchange. An empty profile
// means [DefaultProfile].
func New(cfg tape.Engine, x Exchange) (Engine, error) {
	switch cfg.Profile {
	case "", DefaultProfile:
		return Passthrough{}, nil
	}
	return nil, fmt.Errorf("unknown profile %q (known: %s)", cfg.Profile, DefaultProfile)
}
