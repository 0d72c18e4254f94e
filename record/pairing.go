package record

import (
	"bytes"
	"crypto/sha256"
	"hash/maphash"
	"io"
	"net/http"

	"github.com/tidwall/gjson"
)

// A sandwich's back leg learns which client request a request from the
// proxy under test answers from the ExchangeHeader the front leg adds. A
// proxy that drops unknown headers (LiteLLM-style gateways do) leaves it
// to the requests' content: the back leg reads the first pairCap bytes of
// the body before forwarding it, and compares them with what the front
// leg saw of each client request still waiting for its back leg: the same
// bytes, else the request whose text the proxy's carries the most of (the
// JSON string values both hold: messages, prompts, tool results; a proxy
// that renames the model, adds a system prompt or re-encodes the JSON
// keeps them). Only when nothing matches is the oldest waiting request
// taken, as before. The upstream request line says how (tape.Request's
// Paired).

// pairCap is how much of a request body the two legs compare.
const pairCap = 1 << 20

// maxPairStrings bounds the string values a fingerprint keeps.
const maxPairStrings = 4096

// fingerprint is what pairing compares of a request body.
type fingerprint struct {
	n   int // bytes taken (at most pairCap)
	sum [32]byte
	// strs holds, per distinct JSON string value (by hash), its length
	// times its count; total is their sum.
	strs  map[uint64]int
	total int
}

var pairSeed = maphash.MakeSeed()

// newFingerprint takes the fingerprint of the first pairCap bytes of body.
func newFingerprint(body []byte) *fingerprint {
	body = body[:min(len(body), pairCap)]
	fp := &fingerprint{n: len(body), sum: sha256.Sum256(body)}
	if t := bytes.TrimSpace(body); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		fp.walk(gjson.ParseBytes(t), 0)
	}
	return fp
}

// walk adds the string values in v, at most 64 levels down.
func (fp *fingerprint) walk(v gjson.Result, depth int) {
	switch {
	case v.Type == gjson.String:
		if v.Str == "" {
			return
		}
		h := maphash.String(pairSeed, v.Str)
		if _, ok := fp.strs[h]; !ok && len(fp.strs) >= maxPairStrings {
			return
		}
		if fp.strs == nil {
			fp.strs = map[uint64]int{}
		}
		fp.strs[h] += len(v.Str)
		fp.total += len(v.Str)
	case (v.IsObject() || v.IsArray()) && depth < 64:
		v.ForEach(func(_, e gjson.Result) bool {
			fp.walk(e, depth+1)
			return true
		})
	}
}

// same reports whether the two bodies' compared bytes are the same.
func (fp *fingerprint) same(o *fingerprint) bool { return fp.n == o.n && fp.sum == o.sum }

// overlap returns how much of fp's string content o carries, and how much
// of o's fp does, each from 0 to 1.
func (fp *fingerprint) overlap(o *fingerprint) (float64, float64) {
	if fp.total == 0 || o.total == 0 {
		return 0, 0
	}
	common := 0
	for h, w := range fp.strs {
		common += min(w, o.strs[h])
	}
	return float64(common) / float64(fp.total), float64(common) / float64(o.total)
}

// minOverlap is how much of a client request's text the proxy's request
// must carry to be paired with it by content.
const minOverlap = 0.5

// readAhead reads the first pairCap bytes of req's body (fewer when the
// budget for request bodies in flight is short) for pairing, and puts them
// back in front of the rest.
func (r *Recorder) readAhead(req *http.Request) []byte {
	if req.Body == nil || req.Body == http.NoBody {
		return nil
	}
	limit := int64(pairCap)
	if req.ContentLength >= 0 {
		limit = min(limit, req.ContentLength)
	}
	extra := r.held.take(max(limit-freeRequestBody, 0))
	defer r.held.give(extra)
	limit = min(limit, freeRequestBody+extra)
	b, err := io.ReadAll(io.LimitReader(req.Body, limit))
	rest := io.Reader(req.Body)
	if err != nil {
		rest = errReader{err}
	}
	req.Body = readCloser{io.MultiReader(bytes.NewReader(b), rest), req.Body}
	return b
}

type readCloser struct {
	io.Reader
	io.Closer
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
