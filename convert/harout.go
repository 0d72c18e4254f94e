package convert

// The HTTP Archive 1.2 document WriteHARs writes: an entry per exchange
// (import_har.go reads the ones other tools write).

// harNV is a HAR name/value pair (a header, a query parameter).
type harNV struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// harPostData is a request body.
type harPostData struct {
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
	Encoding string `json:"encoding,omitempty"`
}

// harContent is a response body.
type harContent struct {
	Size        int64  `json:"size"`
	Compression int64  `json:"compression,omitempty"`
	MimeType    string `json:"mimeType"`
	Text        string `json:"text"`
	Encoding    string `json:"encoding,omitempty"`
}

// harRequest is an entry's request.
type harRequest struct {
	Method      string       `json:"method"`
	URL         string       `json:"url"`
	HTTPVersion string       `json:"httpVersion"`
	Headers     []harNV      `json:"headers"`
	QueryString []harNV      `json:"queryString"`
	Cookies     []harNV      `json:"cookies"`
	HeadersSize int          `json:"headersSize"`
	BodySize    int          `json:"bodySize"`
	PostData    *harPostData `json:"postData,omitempty"`
}

// harResponse is an entry's response.
type harResponse struct {
	Status      int        `json:"status"`
	StatusText  string     `json:"statusText"`
	HTTPVersion string     `json:"httpVersion"`
	Headers     []harNV    `json:"headers"`
	Cookies     []harNV    `json:"cookies"`
	Content     harContent `json:"content"`
	RedirectURL string     `json:"redirectURL"`
	HeadersSize int        `json:"headersSize"`
	BodySize    int64      `json:"bodySize"`
}

// harTimings are an entry's timings, in milliseconds.
type harTimings struct {
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
}

// harOutEntry is one exchange.
type harOutEntry struct {
	StartedDateTime string      `json:"startedDateTime"`
	Time            float64     `json:"time"`
	Request         harRequest  `json:"request"`
	Response        harResponse `json:"response"`
	Cache           struct{}    `json:"cache"`
	Timings         harTimings  `json:"timings"`
	Comment         string      `json:"comment,omitempty"`
	// ResourceType and WebSocketMessages are the fields Chrome and
	// Firefox write for a WebSocket: its messages, not its frames.
	ResourceType      string         `json:"_resourceType,omitempty"`
	WebSocketMessages []harWSMessage `json:"_webSocketMessages,omitempty"`
}
