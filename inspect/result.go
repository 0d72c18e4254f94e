package inspect

import (
	"strconv"

	"github.com/seam-dev/seam/tape"
)

// failed reports whether a status is an HTTP failure: 4xx or 5xx.
func failed(status int) bool { return status >= 400 }

// Result says how the exchange ended, for a verdict: "http 400" when the
// side clients received failed with an HTTP status (followed by its
// recorded outcome when that failed too: "http 502 upstream_error"), else
// its recorded outcome ("complete", "truncated", …; "" when not ended).
func (x *ExchangeReport) Result() string {
	if !failed(x.Status) {
		return string(x.Outcome)
	}
	r := "http " + strconv.Itoa(x.Status)
	if x.Outcome != "" && !x.Outcome.Success() {
		r += " " + string(x.Outcome)
	}
	return r
}

// providerSaid returns the error the side clients received carries, else
// the upstream side's.
func providerSaid(c *exCtx) string {
	if v := c.view; v != nil && v.Message.Error != "" {
		return v.Message.Error
	}
	if up := c.sides[tape.Upstream]; up != nil {
		return up.Message.Error
	}
	return ""
}
