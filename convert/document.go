package convert

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/seam-dev/seam/tape"
)

// IsDocument reports whether format (as seam export names it) writes
// every exchange selected as one document: a HAR or a cassette.
func IsDocument(format string) bool { return format == "har" || format == "govcr" || format == "vcrpy" }

// WriteDocument writes caps as one document of a format IsDocument
// reports: "har" (creator naming the writer, decode giving the decoded
// body of a compressed one), "govcr" or "vcrpy".
func WriteDocument(ctx context.Context, w io.Writer, format string, caps []*tape.Capture, creator string, decode func(body []byte, contentEncoding string) ([]byte, error)) error {
	switch format {
	case "govcr":
		return WriteGoVCR(w, caps, CassetteOptions{Context: ctx})
	case "vcrpy":
		return WriteVCRpy(w, caps, CassetteOptions{Context: ctx})
	case "har":
		return WriteHARs(w, caps, HAROptions{Creator: creator, Decode: decode, Context: ctx})
	}
	return fmt.Errorf("no document format %q: want har, govcr or vcrpy", format)
}

// SideBody is the body of x's side as its reader got it: decoded (by
// decode) when it was sent with a Content-Encoding, unless wire asks for
// the bytes as sent. A body that fails to decode part way is returned
// decoded up to there, with the decoder's error as a warning; one that
// does not decode at all is an error.
func SideBody(x *tape.Exchange, side tape.Side, wire bool, decode func(body []byte, contentEncoding string) ([]byte, error)) (body []byte, warning, err error) {
	sd := x.Side(side)
	body = sd.Body()
	if sd.Response == nil || wire {
		return body, nil, nil
	}
	ce := strings.Join(sd.Response.Headers["content-encoding"], ", ")
	if ce == "" {
		return body, nil, nil
	}
	dec, err := decode(body, ce)
	switch {
	case dec == nil && err != nil:
		return nil, nil, fmt.Errorf("exchange %d %s body: %w (--wire writes it as sent)", x.Ex, side, err)
	case err != nil:
		return dec, fmt.Errorf("exchange %d %s body: %w; wrote the %d bytes decoded before it", x.Ex, side, err, len(dec)), nil
	}
	return dec, nil, nil
}
