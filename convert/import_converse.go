package convert

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/seam-dev/seam/framing"
	"github.com/tidwall/gjson"
)

// Bedrock ConverseStream as the AWS SDKs hand it to the program: each event
// one object of the ConverseStreamOutput union, {"contentBlockDelta":
// {"contentBlockIndex": 0, "delta": {"text": "Hi"}}}, the member's name its
// only key. Loggers and test suites write them one per line
// (JSON.stringify of the JavaScript SDK's events, json.dumps of boto3's).
// Import turns each back into the event-stream message Bedrock sends for
// it, so the capture is a ConverseStream as on the wire, less the padding
// field ("p") the SDKs drop.

// converseEvents are the event members of the ConverseStreamOutput union;
// converseExceptions its exception members.
var (
	converseEvents     = []string{"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata"}
	converseExceptions = []string{"internalServerException", "modelStreamErrorException", "validationException", "throttlingException", "serviceUnavailableException"}
)

// converseMember returns the union member an SDK-level ConverseStream
// event names (its only key, whose value is an object) and whether it is
// an exception; "" when obj is not such an event.
func converseMember(obj gjson.Result) (name string, exception bool) {
	if !obj.IsObject() {
		return "", false
	}
	n := 0
	obj.ForEach(func(k, v gjson.Result) bool {
		n++
		if n == 1 && v.IsObject() {
			name = k.String()
		}
		return n == 1
	})
	switch {
	case n != 1 || name == "":
		return "", false
	case slices.Contains(converseEvents, name):
		return name, false
	case slices.Contains(converseExceptions, name):
		return name, true
	}
	return "", false
}

// converseLines reports whether b's first non-blank line is an SDK-level
// ConverseStream event.
func converseLines(b []byte) bool {
	first, _, _ := bytes.Cut(bytes.TrimSpace(b), []byte("\n"))
	if first = bytes.TrimSpace(first); !gjson.ValidBytes(first) {
		return false
	}
	name, _ := converseMember(gjson.ParseBytes(first))
	return name != ""
}

// converseArray reports whether doc is a JSON array of SDK-level
// ConverseStream events (a program's list of them written at once).
func converseArray(doc gjson.Result) bool {
	name, _ := converseMember(doc.Get("0"))
	return doc.IsArray() && name != ""
}

// converseEncoder builds the event-stream body of SDK-level events.
type converseEncoder struct {
	enc  *eventstream.Encoder
	body bytes.Buffer
}

// add encodes the event obj as Bedrock frames it: headers :event-type (or
// :exception-type), :content-type and :message-type, the member's object
// as the JSON payload. It returns false when obj is no event.
func (c *converseEncoder) add(obj gjson.Result) (bool, error) {
	name, exception := converseMember(obj)
	if name == "" {
		return false, nil
	}
	var msg eventstream.Message
	kind := "event"
	if exception {
		kind = "exception"
		msg.Headers.Set(":exception-type", eventstream.StringValue(name))
	} else {
		msg.Headers.Set(":event-type", eventstream.StringValue(name))
	}
	msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
	msg.Headers.Set(":message-type", eventstream.StringValue(kind))
	msg.Payload = []byte(obj.Get(name).Raw)
	if err := c.enc.Encode(&c.body, msg); err != nil {
		return true, fmt.Errorf("encode %s: %w", name, err)
	}
	return true, nil
}

// converseNote says on the exchange what the body is.
const converseNote = "each event was an AWS SDK ConverseStream event (a union member as its only key); " +
	"encoded as the application/vnd.amazon.eventstream message Bedrock sends for it, without the padding field p the SDKs drop"

// converseJSONL imports JSON lines of SDK-level ConverseStream events as
// one Bedrock ConverseStream response. Every non-blank line must be one.
func (im *importer) converseJSONL(b []byte) error {
	im.format = "bedrock converse jsonl"
	c := converseEncoder{enc: eventstream.NewEncoder()}
	br := bufio.NewReader(bytes.NewReader(b))
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if line = bytes.TrimSpace(line); n == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if len(line) > 0 {
			if !gjson.ValidBytes(line) {
				return im.fail(n, "not JSON (a ConverseStream event per line)")
			}
			ok, eerr := c.add(gjson.ParseBytes(line))
			if eerr != nil {
				return im.fail(n, "%v", eerr)
			}
			if !ok {
				return im.fail(n, "not a ConverseStream event: want one of %v or an exception as the only key, its value an object", converseEvents)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("import %s: read line %d: %w", im.name, n, err)
		}
	}
	im.addConverse(&c)
	return nil
}

// converseJSONArray imports a JSON array of SDK-level ConverseStream
// events as one Bedrock ConverseStream response.
func (im *importer) converseJSONArray(doc gjson.Result) error {
	im.format = "bedrock converse json"
	c := converseEncoder{enc: eventstream.NewEncoder()}
	var fail error
	i := 0
	doc.ForEach(func(_, e gjson.Result) bool {
		i++
		ok, err := c.add(e)
		switch {
		case err != nil:
			fail = im.fail(0, "element %d: %v", i, err)
		case !ok:
			fail = im.fail(0, "element %d is not a ConverseStream event", i)
		}
		return fail == nil
	})
	if fail != nil {
		return fail
	}
	im.addConverse(&c)
	return nil
}

func (im *importer) addConverse(c *converseEncoder) {
	im.add(exchangeData{status: http.StatusOK, contentType: framing.EventStream.ContentType(), body: c.body.Bytes(), notes: []string{converseNote}})
}
