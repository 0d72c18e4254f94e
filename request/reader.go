package request

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/seam-dev/seam/internal/jsontext"
	"github.com/tidwall/gjson"
)

// A Reader reads request bodies as Parse does, and remembers the messages
// it has read by their text. An agent's requests each carry the whole
// conversation so far, so most of a body is messages an earlier request
// held byte for byte: a Reader recognises such a message by comparing its
// text with one it has read (a value is valid wherever it stands), and
// neither scans, decodes nor allocates it again; the requests then share
// its Message values, which nothing changes (BenchmarkReader). A Reader is
// safe for concurrent use, and what it keeps is bounded (readerBudget).
// The zero Reader is ready to use.
type Reader struct {
	mu  sync.Mutex
	mem memory
	// tools holds the tools lists read, by their text (copied), and
	// toolsSize their length: every request of an agent's session sends
	// the same list, reading it was a sixth of reading a request.
	tools     map[string]map[string]*Tool
	toolsSize int
	// least is the shortest text remembered (0: minRemembered; tests
	// remember every message) and budget what a memory half keeps (0:
	// readerBudget; NewReader sets it).
	least, budget int
}

// list is which list a value is an element of: the same text means
// another thing in a messages list and in a Responses input list.
type list int

const (
	messagesList list = iota
	inputList
)

// memory holds what was read, by the first keyLen bytes of its text.
// A text and its messages are parts of the body they were read from
// (texts are not copied), so memory counts the bodies it keeps: when cur's
// reach readerBudget bytes, cur becomes old and old is dropped, and a text
// found in old is filed in cur again, copied (so it keeps no body of
// old's), so what recent requests repeat stays.
type memory struct {
	cur, old [2]map[string][]remembered // by list
	size     int
}

// remembered is a value's text and what reading it gave: the messages a
// messages list's element appends, or an input item's message (none for
// an item that carries none).
type remembered struct {
	text string
	msgs []Message
}

const (
	// keyLen is how much of a value's text files it: enough to tell most
	// messages apart by their start; those that start alike are told
	// apart by comparing the rest.
	keyLen = 64
	// minRemembered is the shortest text worth remembering: a shorter one
	// is read about as fast as it is found.
	minRemembered = 96
	// readerBudget bounds the bodies the memory's newer half keeps; the
	// older half keeps as much again. On seam-bench read's capture
	// (bodies of 21 KB on average, a session's turns hundreds of requests
	// apart) the messages recalled were 60 % of the bytes in its first
	// 3,000 requests, 27 % in all 24,000 (71 % with no bound): a recorder
	// of many agents at once needs more than this to recall their
	// histories, one of a developer's few sessions less.
	readerBudget = 8 << 20
	// entrySize and messageSize are what a text filed takes besides the
	// body it is part of: its key, its place in the map and its list,
	// and its messages (a body of many short messages takes more in
	// entries than in bytes).
	entrySize   = 96
	messageSize = int(unsafe.Sizeof(Message{}))
	// maxCandidates bounds the texts filed under one key.
	maxCandidates = 64
)

// NewReader returns a Reader that keeps at most about limit bytes of
// bodies (both halves of its memory; the zero Reader keeps 16 MiB), for
// one that lives beside work with a memory budget of its own.
func NewReader(limit int) *Reader { return &Reader{budget: max(limit/2, 1)} }

// shortest is the shortest text rd remembers.
func (rd *Reader) shortest() int { return cmp.Or(rd.least, minRemembered) }

// Parse reads body as the function Parse does; a nil Reader is Parse.
func (rd *Reader) Parse(body []byte) *Request {
	return parse(body, rd)
}

// recaller is a Reader at work on one body: it charges the body to the
// memory the first time it files a text of it.
type recaller struct {
	rd      *Reader
	body    int
	charged bool
}

// recaller returns rd at work on a body of n bytes; nil for a nil rd.
func (rd *Reader) recaller(n int) *recaller {
	if rd == nil {
		return nil
	}
	return &recaller{rd: rd, body: n}
}

// recall consumes the value at sc's position when it is one read before
// as an element of l, and returns what reading it gave; else it returns
// the key to remember the value by once read. A nil recaller recalls
// nothing.
func (rc *recaller) recall(l list, sc *jsontext.Scanner) (msgs []Message, key string, ok bool) {
	if rc == nil {
		return nil, "", false
	}
	rd, m := rc.rd, &rc.rd.mem
	key = sc.Ahead(keyLen)
	rd.mu.Lock()
	cur, old := m.cur[l][key], m.old[l][key]
	rd.mu.Unlock()
	// Newest first: a conversation repeats what it said last.
	for i := len(cur) - 1; i >= 0; i-- {
		if c := cur[i]; sc.Accept(c.text) {
			return c.msgs, "", true
		}
	}
	for i := len(old) - 1; i >= 0; i-- {
		if c := old[i]; sc.Accept(c.text) {
			// Filed again on its own: its body goes with old.
			d := remembered{text: strings.Clone(c.text), msgs: detach(c.msgs)}
			rd.file(l, key, d, 2*len(d.text))
			return c.msgs, "", true
		}
	}
	return nil, key, false
}

// remember files text, a value sc has just read as an element of l, with
// what reading it gave (msgs), unless sc met an error in it. Only an
// object is remembered: no object's text starts another value (a
// number's can: 1 and 12), so one found at a position is the whole value
// there.
func (rc *recaller) remember(l list, sc *jsontext.Scanner, key, text string, msgs []Message) {
	if rc == nil || sc.Failed() || len(text) < rc.rd.shortest() || text[0] != '{' {
		return
	}
	charge := 0
	if !rc.charged {
		rc.charged, charge = true, rc.body
	}
	rc.rd.file(l, key, remembered{text: text, msgs: slices.Clip(slices.Clone(msgs))}, charge)
}

// file adds r under key to the newer half of l's, charging it n bytes
// more; the newer halves become the older when full.
func (rd *Reader) file(l list, key string, r remembered, n int) {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	m := &rd.mem
	n += len(key) + entrySize + len(r.msgs)*messageSize
	if m.size+n > cmp.Or(rd.budget, readerBudget) {
		m.old, m.cur, m.size = m.cur, [2]map[string][]remembered{}, 0
	}
	if m.cur[l] == nil {
		m.cur[l] = map[string][]remembered{}
	}
	cands := m.cur[l][key]
	for _, c := range cands {
		if c.text == r.text {
			return
		}
	}
	if len(cands) == maxCandidates {
		cands = cands[1:]
	}
	m.cur[l][strings.Clone(key)] = append(cands, r)
	m.size += n
}

// detach copies msgs with strings of their own, not parts of a body's.
func detach(msgs []Message) []Message {
	out := slices.Clip(slices.Clone(msgs))
	for i := range out {
		m := &out[i]
		m.Role, m.Text, m.ToolCallID = strings.Clone(m.Role), strings.Clone(m.Text), strings.Clone(m.ToolCallID)
		m.ToolCalls = slices.Clip(slices.Clone(m.ToolCalls))
		for j := range m.ToolCalls {
			c := &m.ToolCalls[j]
			c.ID, c.Name, c.Arguments, c.Signature = strings.Clone(c.ID), strings.Clone(c.Name), strings.Clone(c.Arguments), strings.Clone(c.Signature)
		}
	}
	return out
}

// readTools reads a tools list as readTools does, recalling one read
// before: the requests then share its Tools, which nothing changes.
func (rc *recaller) readTools(list gjson.Result) map[string]*Tool {
	if rc == nil || len(list.Raw) < rc.rd.shortest() {
		return readTools(list)
	}
	rd := rc.rd
	rd.mu.Lock()
	seen, ok := rd.tools[list.Raw]
	rd.mu.Unlock()
	if ok {
		return maps.Clone(seen)
	}
	tools := readTools(list)
	rd.mu.Lock()
	defer rd.mu.Unlock()
	if rd.toolsSize+len(list.Raw) > cmp.Or(rd.budget, readerBudget)/4 {
		rd.tools, rd.toolsSize = nil, 0
	}
	if rd.tools == nil {
		rd.tools = map[string]map[string]*Tool{}
	}
	rd.tools[strings.Clone(list.Raw)] = tools
	rd.toolsSize += len(list.Raw)
	return maps.Clone(tools)
}
