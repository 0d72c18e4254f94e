package inspect

import (
	"strconv"

	"github.com/seam-dev/seam/tape"
)

// PairingText says in words how a sandwich's two legs were paired, "" when
// the capture does not say. The pairing is seam's own word: no text from
// the capture is in it.
func (x *ExchangeReport) PairingText() string {
	switch x.Paired {
	case tape.PairedHeader:
		return "paired by seam's " + capturedHeader + " header, which the proxy under test passed on"
	case tape.PairedContent:
		return "paired by request content: the proxy under test dropped seam's " + capturedHeader + " header"
	case tape.PairedOrder:
		return "paired in arrival order, a guess: the proxy under test dropped seam's " + capturedHeader + " header and no client request's content matched"
	case tape.PairedNone:
		return "no client request was waiting: the proxy under test made this upstream request of its own"
	case "":
		return ""
	}
	return "paired: " + strconv.QuoteToASCII(x.Paired) // from a capture: quoted, escapes and all
}

// capturedHeader is the header seam's sandwich adds to tie its legs
// together (record.ExchangeHeader; inspect does not import record).
const capturedHeader = "Seam-Exchange"
