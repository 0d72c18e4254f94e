package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// requestBody is a typical streaming Chat Completions request.
const requestBody = `{"model":"gpt-4o-2024-08-06","stream":true,"stream_options":{"include_usage":true},` +
	`"messages":[{"role":"system","content":"You are a helpful assistant."},` +
	`{"role":"user","content":"Explain in a few paragraphs how a recording reverse proxy keeps streams unbuffered."}]}`

// NewTransport returns an HTTP transport for benchmark clients: no proxy from
// the environment, no compression, and enough idle connections per host for
// many concurrent streams to reuse theirs.
func NewTransport() *http.Transport {
	return &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 512,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
	}
}

// Result is what [Client.Stream] measured on one stream, in [Clock] time.
type Result struct {
	Sent   int64  // just before the request was sent
	First  int64  // when the first content event had arrived whole
	Done   int64  // when the body had been read to its end
	Events int    // content events received
	Bytes  int64  // body bytes received
	Proto  string // the response's protocol ("HTTP/1.1", "HTTP/2.0")
}

// TTFB returns the time from sending the request to the first event.
func (r Result) TTFB() time.Duration { return time.Duration(r.First - r.Sent) }

// Client reads streams from an [Upstream], directly or through a proxy, and
// measures them. A Client is for one goroutine; many may share one
// http.Client.
type Client struct {
	// HTTP sends the requests.
	HTTP *http.Client
	// Clock must be the upstream's clock.
	Clock Clock
	// Verify makes Stream check every event byte for byte against what the
	// upstream sent.
	Verify bool
	// Copy, if set, receives every body byte read.
	Copy io.Writer
	// Latencies gets each content event's latency (receive − send, in ns)
	// appended to it.
	Latencies []int64

	br      *bufio.Reader
	scratch []byte
}

// Stream requests stream s from baseURL (the upstream's or a proxy's) and
// reads it to its end, measuring as it goes. It fails if any event is
// missing, out of order or, with Verify, not byte-exact.
func (c *Client) Stream(ctx context.Context, baseURL string, s Stream) (Result, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost,
		baseURL+"/v1/chat/completions?"+s.query(), strings.NewReader(requestBody))
	if err != nil {
		return Result{}, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer sk-seambench-not-a-secret")

	var res Result
	res.Sent = c.Clock.Now()
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return res, fmt.Errorf("send request: %w", err)
	}
	defer resp.Body.Close()
	res.Proto = resp.Proto
	if resp.StatusCode != http.StatusOK {
		return res, fmt.Errorf("status %d", resp.StatusCode)
	}
	var body io.Reader = resp.Body
	if c.Copy != nil {
		body = io.TeeReader(body, c.Copy)
	}
	if c.br == nil {
		c.br = bufio.NewReaderSize(body, 64<<10)
	} else {
		c.br.Reset(body)
	}
	err = c.read(&res, s)
	res.Done = c.Clock.Now()
	if err != nil {
		return res, fmt.Errorf("read stream of %d events: %w", s.Events, err)
	}
	return res, nil
}

// read reads one stream's events up to EOF.
func (c *Client) read(res *Result, s Stream) error {
	var (
		sent    int64
		pending bool // a content event's data line was read
		final   = 0  // bytes of finalEvents matched so far
		done    bool
	)
	for {
		line, err := c.br.ReadSlice('\n')
		res.Bytes += int64(len(line))
		if errors.Is(err, io.EOF) && len(line) == 0 {
			break
		}
		if err != nil {
			return fmt.Errorf("after %d events: %w", res.Events, err)
		}
		switch {
		case len(line) == 1: // the blank line that ends an event
			if final > 0 {
				final++
				if final > len(finalEvents) || finalEvents[final-1] != '\n' {
					return fmt.Errorf("event %d: unexpected blank line", res.Events)
				}
				done = final == len(finalEvents)
				continue
			}
			if !pending {
				return fmt.Errorf("event %d: blank line without data", res.Events)
			}
			now := c.Clock.Now()
			if res.Events == 0 {
				res.First = now
			}
			c.Latencies = append(c.Latencies, now-sent)
			res.Events++
			pending = false
			if s.Gate != nil {
				s.Gate.Next()
			}
		case pending || done:
			return fmt.Errorf("event %d: data after the end of the event", res.Events)
		default:
			seq, t, ok := parseStamp(line)
			if !ok {
				// Not a content event: it must be the next part of finalEvents.
				if res.Events != s.Events || !strings.HasPrefix(finalEvents[final:], string(line)) {
					return fmt.Errorf("event %d: unexpected line %.80q", res.Events, line)
				}
				final += len(line)
				continue
			}
			if seq != res.Events {
				return fmt.Errorf("event %d arrived as event %d", seq, res.Events)
			}
			if c.Verify {
				c.scratch = appendEvent(c.scratch[:0], seq, t)
				if !bytes.Equal(line, c.scratch[:len(c.scratch)-1]) {
					return fmt.Errorf("event %d: got %q, want %q", seq, line, c.scratch[:len(c.scratch)-1])
				}
			}
			sent, pending = t, true
		}
	}
	if !done || res.Events != s.Events {
		return fmt.Errorf("stream ended after %d of %d events (terminal events seen: %t)", res.Events, s.Events, done)
	}
	return nil
}
