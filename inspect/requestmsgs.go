package inspect

import (
	"slices"

	"github.com/seam-dev/seam/request"
	"github.com/seam-dev/seam/tape"
)

// RequestMessages returns the messages of x's request as rep read them
// (package request), reading the body again for a report that did not
// keep them; none for an exchange without a request or a body of another
// shape.
func RequestMessages(x *tape.Exchange, rep *ExchangeReport) []request.Message {
	if x.Request == nil {
		return nil
	}
	ri := rep.req
	if ri == nil {
		ri = request.Parse(x.Request.Body)
	}
	return slices.Clone(ri.Messages)
}
