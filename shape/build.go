package shape

import (
	"strings"

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
// means [DefaultProfile]; switches missing from cfg take the profile's
// default. The result is [Passthrough] when every switch has its passthrough
// value, and for any exchange that is not a 2xx text/event-stream response;
// otherwise it is a decoding engine, which itself passes the bytes through
// unchanged if the stream's protocol is not recognized.
func New(cfg tape.Engine, x Exchange) (Engine, error) {
	c, err := resolveConfig(cfg.Profile, cfg.Switches)
	if err != nil {
		return nil, err
	}
	if c.passthrough() || !isSSE(x) {
		return Passthrough{}, nil
	}
	return newShaper(c), nil
}

func isSSE(x Exchange) bool {
	if x.Status < 200 || x.Status > 299 {
		return false
	}
	mt, _, _ := strings.Cut(x.ContentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "text/event-stream")
}
