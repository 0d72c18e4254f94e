package convert

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Ruby's vcr gem (VCR 2 to 6, the recorder of ruby-openai, the anthropic
// gem, ruby_llm, activeagent and most Ruby clients) writes a cassette as
// {http_interactions: [...], recorded_with: "VCR 6.1.0"}, YAML through Psych
// by default, JSON with serialize_with :json. Each interaction is
//
//	request:  {method: post, uri, body: {encoding, string}, headers}
//	response: {status: {code, message}, headers, body: {encoding, string},
//	           http_version}
//	recorded_at: "Fri, 14 Mar 2025 14:01:56 GMT"
//
// headers map each name to a list of values. A body is the string as Ruby
// held it and the name of its encoding: Psych writes a binary (ASCII-8BIT)
// string that is not plain ASCII as base64 under the !binary tag, and with
// preserve_exact_body_bytes VCR writes base64_string (Base64.encode64, a
// line break every 60 characters) instead of string. On playback VCR
// re-encodes a string into the encoding it names.

// rubyVCRInteraction is one interaction of a Ruby vcr cassette. Bodies and
// header values stay nodes: they may be strings, !binary or null.
type rubyVCRInteraction struct {
	Request struct {
		Method  string               `yaml:"method"`
		URI     string               `yaml:"uri"`
		Body    yaml.Node            `yaml:"body"`
		Headers map[string]yaml.Node `yaml:"headers"`
	} `yaml:"request"`
	Response struct {
		Status struct {
			Code int `yaml:"code"`
		} `yaml:"status"`
		Headers map[string]yaml.Node `yaml:"headers"`
		Body    yaml.Node            `yaml:"body"`
	} `yaml:"response"`
	RecordedAt string `yaml:"recorded_at"`
}

// rubyCassette imports the http_interactions of a Ruby vcr cassette's root
// mapping. The capture starts at the first interaction's recorded_at (when
// VCR stored it, to the second); the source has no time per exchange.
func (im *importer) rubyCassette(root *yaml.Node) error {
	im.format = "ruby vcr cassette"
	list := resolve(mapValue(root, "http_interactions"))
	if list.Kind != yaml.SequenceNode {
		return im.fail(list.Line, "a Ruby vcr cassette whose http_interactions is not a list")
	}
	for i, n := range list.Content {
		var it rubyVCRInteraction
		if err := resolve(n).Decode(&it); err != nil {
			return im.fail(n.Line, "Ruby vcr interaction %d: %v", i+1, err)
		}
		if it.Request.URI == "" {
			return im.fail(n.Line, "Ruby vcr interaction %d has no request uri", i+1)
		}
		if at, err := time.Parse(time.RFC1123, it.RecordedAt); err == nil && im.c.Header.Started.IsZero() {
			im.c.Header.Started = at
		}
		scheme, host, path := splitURL(it.Request.URI)
		x := exchangeData{method: strings.ToUpper(it.Request.Method), scheme: scheme, host: host, url: path, status: it.Response.Status.Code}
		var err error
		if x.reqHeaders, err = nodeHeaders(it.Request.Headers); err != nil {
			return im.fail(n.Line, "interaction %d: request headers: %v", i+1, err)
		}
		if x.respHeaders, err = nodeHeaders(it.Response.Headers); err != nil {
			return im.fail(n.Line, "interaction %d: response headers: %v", i+1, err)
		}
		var note string
		if x.reqBody, note, err = rubyVCRBody(&it.Request.Body); err != nil {
			return im.fail(it.Request.Body.Line, "interaction %d: request body: %v", i+1, err)
		}
		if note != "" {
			x.notes = append(x.notes, "request body: "+note)
		}
		if x.body, note, err = rubyVCRBody(&it.Response.Body); err != nil {
			return im.fail(it.Response.Body.Line, "interaction %d: response body: %v", i+1, err)
		}
		if note != "" {
			x.notes = append(x.notes, "response body: "+note)
		}
		if len(x.reqBody) == 0 {
			x.reqBody = nil
		}
		if x.status == 0 {
			x.status = http.StatusOK
		}
		im.add(x)
	}
	return nil
}

// rubyVCRBody returns the bytes of a Ruby vcr body, {encoding, string} or
// {encoding, base64_string} (or a bare string), with a note when they are not the bytes the client got: the text of a body in
// an encoding other than UTF-8, ASCII or binary stays UTF-8.
func rubyVCRBody(n *yaml.Node) ([]byte, string, error) {
	n = resolve(n)
	if n == nil || n.Kind == 0 {
		return nil, "", nil
	}
	if n.Kind != yaml.MappingNode {
		b, err := nodeBytes(n)
		return b, "", err
	}
	var encoding string
	if e := resolve(mapValue(n, "encoding")); e != nil && e.Kind == yaml.ScalarNode {
		encoding = e.Value
	}
	if s := mapValue(n, "base64_string"); s != nil {
		v := resolve(s)
		if v.Kind != yaml.ScalarNode {
			return nil, "", fmt.Errorf("line %d: base64_string is a %s, not a string", v.Line, kindName(v.Kind))
		}
		b, err := base64.StdEncoding.DecodeString(strings.Map(dropSpace, v.Value))
		if err != nil {
			return nil, "", fmt.Errorf("line %d: base64_string: %w", v.Line, err)
		}
		return b, "", nil
	}
	str := resolve(mapValue(n, "string"))
	b, err := nodeBytes(str)
	if err != nil || str == nil || isBinaryTag(str) {
		return b, "", err
	}
	return recode(b, encoding)
}

// recode turns the UTF-8 text of a body back into the bytes of the
// encoding VCR names, as VCR does on playback: the same bytes for UTF-8,
// ASCII and binary, one byte per character for ISO-8859-1. Other
// encodings keep the UTF-8 text, with a note saying so.
func recode(b []byte, encoding string) ([]byte, string, error) {
	switch strings.ToUpper(encoding) {
	case "", "UTF-8", "US-ASCII", "ASCII-8BIT", "BINARY":
		return b, "", nil
	case "ISO-8859-1":
		out := make([]byte, 0, len(b))
		for s := string(b); s != ""; {
			r, size := utf8.DecodeRuneInString(s)
			if r > 0xff || r == utf8.RuneError && size == 1 {
				return nil, "", fmt.Errorf("text %q is not ISO-8859-1, the encoding the cassette names", s[:size])
			}
			out, s = append(out, byte(r)), s[size:]
		}
		return out, "", nil
	}
	return b, fmt.Sprintf("the cassette stored it as text of encoding %s, imported as that text in UTF-8", encoding), nil
}
