package convert

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/seam-dev/seam/tape"
	"go.yaml.in/yaml/v3"
)

// VCR cassettes come in two families, told apart by parsing:
//
//   - go-vcr (Go): interactions of {request: {body, headers, url, method,
//     ...}, response: {body, headers, status, code, duration}}; cassette
//     format 1 is written by go-vcr v1 (yaml.v2, duration a string, often
//     empty) and v2 (yaml.v3, duration like "1.5s"), format 2 by v3 and v4,
//     which add an id per interaction and the protocol fields. Bodies are
//     strings; yaml.v3 writes a body that is not UTF-8 as !!binary.
//   - VCR.py (Python): interactions of {request: {body, headers, method,
//     uri}, response: {body: {string}, headers, status: {code, message}}},
//     headers as lists of values, bytes as !!binary. pydantic-ai's
//     serializer replaces a JSON body by parsed_body, the decoded value.

// goVCRInteraction is one interaction of a go-vcr cassette (formats 1 and 2).
type goVCRInteraction struct {
	ID      int `yaml:"id"`
	Request struct {
		Body    string              `yaml:"body"`
		Headers map[string][]string `yaml:"headers"`
		URL     string              `yaml:"url"`
		Method  string              `yaml:"method"`
	} `yaml:"request"`
	Response struct {
		Body    string              `yaml:"body"`
		Headers map[string][]string `yaml:"headers"`
		Status  string              `yaml:"status"`
		Code    int                 `yaml:"code"`
		// Duration is a Go duration string ("1.5s"), or nanoseconds.
		Duration yaml.Node `yaml:"duration"`
	} `yaml:"response"`
}

// vcrpyInteraction is one interaction of a VCR.py cassette. Bodies and
// header values stay nodes: they may be strings, !!binary, null, or (for
// pydantic-ai) a parsed_body value.
type vcrpyInteraction struct {
	Request struct {
		Body       yaml.Node            `yaml:"body"`
		ParsedBody yaml.Node            `yaml:"parsed_body"`
		Headers    map[string]yaml.Node `yaml:"headers"`
		Method     string               `yaml:"method"`
		URI        string               `yaml:"uri"`
	} `yaml:"request"`
	Response struct {
		Body       yaml.Node            `yaml:"body"`
		ParsedBody yaml.Node            `yaml:"parsed_body"`
		Headers    map[string]yaml.Node `yaml:"headers"`
		Status     struct {
			Code    int    `yaml:"code"`
			Message string `yaml:"message"`
		} `yaml:"status"`
	} `yaml:"response"`
}

// yamlCassette imports b if it parses as YAML holding a mapping with an
// interactions list. It returns false, nil when b is not a cassette.
func (im *importer) yamlCassette(b []byte) (bool, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		if bytes.HasPrefix(b, []byte("interactions:")) || bytes.Contains(b, []byte("\ninteractions:")) || bytes.Contains(b, []byte("http_interactions:")) {
			return true, im.fail(0, "a YAML cassette that does not parse: %v", err)
		}
		return false, nil
	}
	root := docRoot(&doc)
	switch {
	case root == nil || root.Kind != yaml.MappingNode:
		return false, nil
	case mapValue(root, "http_interactions") != nil:
		return true, im.rubyCassette(root)
	case mapValue(root, "interactions") != nil:
		return true, im.cassetteNode(root)
	}
	return false, nil
}

// cassette imports a cassette written as JSON (VCR.py's json serializer,
// go-vcr with a JSON MarshalFunc, Ruby vcr's serialize_with :json); YAML
// 1.2 reads JSON.
func (im *importer) cassette(b []byte) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return im.fail(0, "a JSON cassette that does not parse: %v", err)
	}
	root := docRoot(&doc)
	if mapValue(root, "http_interactions") != nil {
		return im.rubyCassette(root)
	}
	return im.cassetteNode(root)
}

// cassetteNode imports the interactions of a cassette's root mapping,
// telling go-vcr from VCR.py by the request's url or uri key.
func (im *importer) cassetteNode(root *yaml.Node) error {
	list := mapValue(root, "interactions")
	if list.Kind != yaml.SequenceNode {
		return im.fail(list.Line, "a cassette whose interactions is not a list")
	}
	version := 0
	if v := mapValue(root, "version"); v != nil {
		if err := v.Decode(&version); err != nil {
			return im.fail(v.Line, "cassette version %q is not a number", v.Value)
		}
	}
	for i, it := range list.Content {
		it = resolve(it)
		req := resolve(mapValue(it, "request"))
		if it.Kind != yaml.MappingNode || req == nil || req.Kind != yaml.MappingNode {
			return im.fail(it.Line, "interaction %d has no request mapping", i+1)
		}
		var err error
		switch {
		case mapValue(req, "uri") != nil:
			im.format = "vcr.py cassette"
			err = im.vcrpy(it)
		case mapValue(req, "url") != nil:
			if version == 0 {
				version = 1
			}
			im.format = fmt.Sprintf("go-vcr cassette v%d", version)
			err = im.goVCR(it)
		default:
			return im.fail(req.Line, "interaction %d: the request has neither url (go-vcr) nor uri (VCR.py)", i+1)
		}
		if err != nil {
			return err
		}
	}
	if im.format == "" {
		im.format = "cassette"
	}
	return nil
}

func (im *importer) goVCR(n *yaml.Node) error {
	var it goVCRInteraction
	if err := n.Decode(&it); err != nil {
		return im.fail(n.Line, "go-vcr interaction: %v", err)
	}
	scheme, host, path := splitURL(it.Request.URL)
	x := exchangeData{
		method: it.Request.Method, url: path, scheme: scheme, host: host,
		reqHeaders: http.Header(it.Request.Headers),
		status:     it.Response.Code, respHeaders: http.Header(it.Response.Headers),
		body: []byte(it.Response.Body),
	}
	if it.Request.Body != "" {
		x.reqBody = []byte(it.Request.Body)
	}
	d, err := nodeDuration(&it.Response.Duration)
	if err != nil {
		return im.fail(it.Response.Duration.Line, "response duration: %v", err)
	}
	if d > 0 {
		x.end = int64(d)
		im.timing = tape.TimingPartial
	}
	im.add(x)
	return nil
}

// nodeDuration reads go-vcr's duration: a Go duration string, or an integer
// of nanoseconds (time.Duration written by a JSON or yaml.v2 marshaller).
func nodeDuration(n *yaml.Node) (time.Duration, error) {
	if n.Kind == 0 || n.Tag == "!!null" || n.Value == "" {
		return 0, nil
	}
	if n.Tag == "!!int" {
		ns, err := strconv.ParseInt(n.Value, 10, 64)
		return time.Duration(ns), err
	}
	return time.ParseDuration(n.Value)
}

func (im *importer) vcrpy(n *yaml.Node) error {
	var it vcrpyInteraction
	if err := n.Decode(&it); err != nil {
		return im.fail(n.Line, "VCR.py interaction: %v", err)
	}
	scheme, host, path := splitURL(it.Request.URI)
	x := exchangeData{method: it.Request.Method, scheme: scheme, host: host, url: path, status: it.Response.Status.Code}
	var err error
	if x.reqHeaders, err = nodeHeaders(it.Request.Headers); err != nil {
		return im.fail(n.Line, "request headers: %v", err)
	}
	if x.respHeaders, err = nodeHeaders(it.Response.Headers); err != nil {
		return im.fail(n.Line, "response headers: %v", err)
	}
	if x.reqBody, err = vcrpyBody(&it.Request.Body, &it.Request.ParsedBody); err != nil {
		return im.fail(it.Request.Body.Line, "request body: %v", err)
	}
	body := &it.Response.Body
	if b := resolve(body); b != nil && b.Kind == yaml.MappingNode {
		body = mapValue(b, "string")
	}
	if x.body, err = vcrpyBody(body, &it.Response.ParsedBody); err != nil {
		return im.fail(it.Response.Body.Line, "response body: %v", err)
	}
	im.add(x)
	return nil
}

// vcrpyBody returns a VCR.py body: the bytes of a string or !!binary
// scalar, or parsed_body re-emitted as JSON exactly as the cassette has it.
func vcrpyBody(body, parsed *yaml.Node) ([]byte, error) {
	if p := resolve(parsed); p != nil && p.Kind != 0 {
		var buf []byte
		return appendNodeJSON(buf, p)
	}
	return nodeBytes(body)
}

// nodeHeaders reads a header map whose values are a list of values or one
// value, each a string or !!binary.
func nodeHeaders(m map[string]yaml.Node) (http.Header, error) {
	h := http.Header{}
	for name, v := range m {
		vals := []*yaml.Node{&v}
		if n := resolve(&v); n.Kind == yaml.SequenceNode {
			vals = n.Content
		}
		for _, vn := range vals {
			b, err := nodeBytes(vn)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			h[name] = append(h[name], string(b))
		}
	}
	return h, nil
}

// nodeBytes returns the bytes of a scalar: base64-decoded for !!binary (or
// Psych's !binary), nil
// for null or an absent node, the text otherwise (whatever the tag, so
// Python tags such as !!python/unicode read as their text).
func nodeBytes(n *yaml.Node) ([]byte, error) {
	n = resolve(n)
	if n == nil || n.Kind == 0 {
		return nil, nil
	}
	if n.Kind != yaml.ScalarNode {
		return nil, fmt.Errorf("line %d: want a string, got a %s", n.Line, kindName(n.Kind))
	}
	switch {
	case n.ShortTag() == "!!null":
		return nil, nil
	case isBinaryTag(n):
		b, err := base64.StdEncoding.DecodeString(strings.Map(dropSpace, n.Value))
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", n.Line, n.Tag, err)
		}
		return b, nil
	}
	return []byte(n.Value), nil
}

// isBinaryTag reports whether n holds base64 bytes: YAML's !!binary, or
// Ruby Psych's !binary.
func isBinaryTag(n *yaml.Node) bool {
	return n.ShortTag() == "!!binary" || n.Tag == "!binary"
}

func dropSpace(r rune) rune {
	if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
		return -1
	}
	return r
}

// appendNodeJSON appends n as JSON: mappings keep their key order, numbers
// their text (no float rounding, no lost integer digits), strings are
// escaped as JSON.stringify does.
func appendNodeJSON(dst []byte, n *yaml.Node) ([]byte, error) {
	n = resolve(n)
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return append(dst, "null"...), nil
		}
		return appendNodeJSON(dst, n.Content[0])
	case yaml.MappingNode:
		dst = append(dst, '{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = tape.AppendJSONString(dst, resolve(n.Content[i]).Value)
			dst = append(dst, ':')
			var err error
			if dst, err = appendNodeJSON(dst, n.Content[i+1]); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	case yaml.SequenceNode:
		dst = append(dst, '[')
		for i, c := range n.Content {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendNodeJSON(dst, c); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case yaml.ScalarNode:
		return appendScalarJSON(dst, n)
	}
	return nil, fmt.Errorf("line %d: cannot write a %s as JSON", n.Line, kindName(n.Kind))
}

// appendScalarJSON appends a YAML scalar as the JSON value it stands for.
func appendScalarJSON(dst []byte, n *yaml.Node) ([]byte, error) {
	switch n.ShortTag() {
	case "!!null":
		return append(dst, "null"...), nil
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err != nil {
			return nil, err
		}
		return strconv.AppendBool(dst, b), nil
	case "!!int", "!!float":
		if jsonNumber(n.Value) {
			return append(dst, n.Value...), nil
		}
		var f float64
		if err := n.Decode(&f); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			if n.ShortTag() == "!!int" && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
				return strconv.AppendInt(dst, int64(f), 10), nil
			}
			return strconv.AppendFloat(dst, f, 'g', -1, 64), nil
		}
		// .inf, .nan and integers too large to convert keep their text.
		return tape.AppendJSONString(dst, n.Value), nil
	}
	return tape.AppendJSONString(dst, n.Value), nil
}

// jsonNumber reports whether s is a number as JSON writes it.
func jsonNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// docRoot returns the root node of a parsed document, or nil.
func docRoot(doc *yaml.Node) *yaml.Node {
	if doc.Kind == yaml.DocumentNode {
		if len(doc.Content) == 0 {
			return nil
		}
		return resolve(doc.Content[0])
	}
	return resolve(doc)
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// mapValue returns the value of key in mapping m, or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	m = resolve(m)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "scalar"
	case yaml.AliasNode:
		return "alias"
	}
	return "document"
}
