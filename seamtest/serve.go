package seamtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/seam-dev/seam/captures"
	"github.com/seam-dev/seam/listen"
	"github.com/seam-dev/seam/record"
	"github.com/seam-dev/seam/replay"
	"github.com/seam-dev/seam/shape"
	"github.com/seam-dev/seam/tape"
)

// Server is a mock upstream answering from captures, with an in-process
// recorder in front of it that keeps what its clients received. Make one
// with [Serve]; the test's cleanup stops it.
type Server struct {
	// URL is the base URL to point the client under test at, such as
	// "http://127.0.0.1:41873" (append "/v1" for an OpenAI SDK). With
	// [Proxy], it is the leg in front of the proxy under test.
	URL string

	cfg    config
	header tape.Header
	client *http.Client

	// The mock upstream: an httptest.Server, or, in the modes that
	// forward, a recording whose handler answers from the captures.
	mock    *httptest.Server
	vcr     *record.Recording
	mockURL string

	// The observer: the recorders in front of the mock (one Whole leg, or
	// the Front and Back legs around a proxy) writing to sink.
	front, back *httptest.Server
	recs        []*record.Recorder
	legs        *http.Transport
	w           *tape.Writer
	sink        *sink

	mu     sync.Mutex
	served []replay.Served
	told   int // served[:told] were looked at for misses
	closed bool
}

// Serve starts a mock upstream answering from the capture at path (a
// capture file, .ndjson or .ndjson.zst, a directory of them, or another
// tool's recording seam import reads) with the matching, VCR modes,
// timing and faults of seam serve, and an in-process recorder in front of
// it. It fails the test at once when the captures cannot be read or an
// option is wrong. The test's cleanup stops it, waits for the streams in
// flight, and fails the test for every request that matched nothing
// (unless [AllowMisses]).
func Serve(t testing.TB, path string, opts ...Option) *Server {
	t.Helper()
	c := defaults(path)
	for _, o := range opts {
		if err := o(&c); err != nil {
			t.Fatalf("seamtest: %v", err)
			return nil
		}
	}
	s, err := start(c)
	if err != nil {
		t.Fatalf("seamtest: %v", err)
		return nil
	}
	t.Cleanup(func() {
		if err := s.close(); err != nil {
			t.Errorf("seamtest: %v", err)
		}
		if !c.allowMisses {
			for _, v := range s.misses() {
				t.Errorf("seamtest: %s", visibleLine(v.String()))
			}
		}
	})
	return s
}

// Client returns an HTTP client for [Server.URL] whose idle connections
// are closed with the server.
func (s *Server) Client() *http.Client { return s.client }

// start builds the server c describes; on error nothing is left running.
func start(c config) (_ *Server, err error) {
	s := &Server{cfg: c, legs: legTransport()}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	if err := s.startMock(c); err != nil {
		return nil, err
	}
	if err := s.startObserver(c); err != nil {
		return nil, err
	}
	s.client = &http.Client{Transport: legTransport()}
	return s, nil
}

// legTransport is the transport of seam's recording legs: many streams,
// bodies passed as they come (a compressed body stays compressed).
func legTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	t.DisableCompression = true
	t.Proxy = nil
	return t
}

// startMock starts the mock upstream: replay's server, behind a recording
// of what it forwards when the mode forwards.
func (s *Server) startMock(c config) error {
	mode, err := replay.ParseMode(c.mode)
	if err != nil {
		return err
	}
	var faults []replay.Fault
	for _, spec := range c.faults {
		f, err := replay.ParseFault(spec)
		if err != nil {
			return err
		}
		faults = append(faults, f)
	}
	red, err := tape.ParseRedaction(c.redact)
	if err != nil {
		return err
	}
	ctx := context.Background()
	load, recordTo, err := mockPlan(ctx, c, mode)
	if err != nil {
		return err
	}
	var caps []*tape.Capture
	if len(load) > 0 {
		if caps, err = captures.LoadAll(ctx, load, captures.Options{}); err != nil {
			return err
		}
	}
	sopts := replay.ServerOptions{Speed: c.speed, Faults: faults, Seed: c.seed, Mode: mode,
		Ignore: c.ignore, Redaction: red, Log: s.log}
	forwards := mode != replay.ModeNone && (mode != replay.ModeOnce || recordTo != "")
	if !forwards {
		s.mock = httptest.NewServer(replay.NewServer(caps, sopts))
		s.mockURL = s.mock.URL
		return nil
	}
	if c.upstream == "" {
		return fmt.Errorf("mode %s forwards requests: give Upstream(url)", mode)
	}
	up, err := url.Parse(c.upstream)
	if err != nil || up.Scheme == "" || up.Host == "" {
		return fmt.Errorf("Upstream(%q): want an absolute URL such as https://api.openai.com", c.upstream)
	}
	create := func() (io.WriteCloser, string, error) { return captures.Create(recordTo, io.Discard, time.Now()) }
	if mode == replay.ModePassthrough {
		create = func() (io.WriteCloser, string, error) { return captures.Discard(), "", nil }
	}
	leg := replay.MissEndpoint("127.0.0.1:0", up, caps, sopts)
	s.vcr, err = record.StartRecording(record.RecordingOptions{
		Create:    create,
		Header:    tape.Header{Seam: "seamtest", Upstream: tape.RedactUpstream(up), Engine: tape.Engine{Profile: shape.DefaultProfile}},
		Endpoints: []*record.Endpoint{leg},
		Server:    listen.Options{Log: io.Discard},
		Redaction: red,
	})
	if err != nil {
		return err
	}
	s.mockURL = "http://" + leg.Addr().String()
	return nil
}

// mockPlan returns what the mock upstream of c replays (load) and where
// it records (record, "" for nowhere) in mode.
func mockPlan(ctx context.Context, c config, mode replay.Mode) (load []string, recordTo string, err error) {
	load = c.paths
	switch mode {
	case replay.ModeOnce:
		exists, err := captures.Exists(ctx, c.paths[0])
		if err != nil {
			return nil, "", err
		}
		if !exists {
			load, recordTo = c.paths[1:], c.paths[0]
		}
	case replay.ModeNewEpisodes:
		recordTo = c.recordTo
		if recordTo == "" {
			recordTo = newEpisodes(c.paths[0])
		}
	case replay.ModeAll:
		load, recordTo = nil, c.recordTo
		if recordTo == "" {
			recordTo = c.paths[0]
		}
	case replay.ModePassthrough:
		load = nil
	}
	return load, recordTo, nil
}

// newEpisodes is where new_episodes records by default: the directory
// served, or the served file's directory.
func newEpisodes(path string) string {
	if ok, _ := captures.Exists(context.Background(), path); ok && !tape.HasCaptureExt(path) {
		return path + string(filepath.Separator)
	}
	return filepath.Dir(path) + string(filepath.Separator)
}

// startObserver starts the recorders in front of the mock: one leg, or
// two around the proxy under test, writing one capture to memory.
func (s *Server) startObserver(c config) error {
	s.sink = new(sink)
	s.w = tape.NewWriter(s.sink, tape.WriterOptions{})
	start := time.Now()
	s.header = tape.Header{V: tape.Version, Seam: "seamtest", ID: "seamtest", Started: start.UTC(),
		Upstream: s.mockURL, Engine: tape.Engine{Profile: shape.DefaultProfile}}
	if c.proxy != nil {
		s.header.Engine = tape.Engine{Profile: shape.ProfileExternal}
	}
	s.w.Header(s.header)
	numbering := new(record.Numbering)
	newRec := func(upstream string, leg record.Leg) (*record.Recorder, error) {
		u, err := url.Parse(upstream)
		if err != nil {
			return nil, fmt.Errorf("recording leg: %w", err)
		}
		rec, err := record.New(record.Options{Upstream: u, Writer: s.w, Start: start, Leg: leg,
			Numbering: numbering, Transport: s.legs})
		if err == nil {
			s.recs = append(s.recs, rec)
		}
		return rec, err
	}
	if c.proxy == nil {
		rec, err := newRec(s.mockURL, record.Whole)
		if err != nil {
			return err
		}
		s.front = httptest.NewServer(rec)
		s.URL = s.front.URL
		return nil
	}
	// The back leg listens before the proxy starts: the proxy is given
	// its URL.
	s.back = httptest.NewUnstartedServer(nil)
	rec, err := newRec(s.mockURL, record.Back)
	if err != nil {
		return err
	}
	s.back.Config.Handler = rec
	s.back.Start()
	proxyURL := c.proxy(s.back.URL)
	if proxyURL == "" {
		return errors.New("Proxy: the start function returned no URL")
	}
	if rec, err = newRec(proxyURL, record.Front); err != nil {
		return err
	}
	s.front = httptest.NewServer(rec)
	s.URL = s.front.URL
	return nil
}

// log keeps what the mock did with each request.
func (s *Server) log(v replay.Served) {
	s.mu.Lock()
	s.served = append(s.served, v)
	s.mu.Unlock()
}

// misses returns the requests the mock answered with a 404 that no
// earlier call returned: each fails the test once.
func (s *Server) misses() []replay.Served {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []replay.Served
	for _, v := range s.served[s.told:] {
		if v.Exchange == "" {
			out = append(out, v)
		}
	}
	s.told = len(s.served)
	return out
}

// close stops the legs in front first (httptest waits for the requests
// in flight), then the mock, and closes the capture the modes that
// forward record.
func (s *Server) close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	if s.client != nil {
		s.client.CloseIdleConnections()
	}
	for _, srv := range []*httptest.Server{s.front, s.back} {
		if srv != nil {
			srv.Close()
		}
	}
	for _, rec := range s.recs {
		rec.Wait()
	}
	var errs []error
	if s.w != nil {
		if err := s.w.Close(); err != nil {
			errs = append(errs, fmt.Errorf("in-process capture: %w", err))
		}
	}
	s.legs.CloseIdleConnections()
	if s.mock != nil {
		s.mock.Close()
	}
	if s.vcr != nil {
		if err := s.vcr.Stop(5*time.Second, io.Discard); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// sink is the in-memory capture the observer writes.
type sink struct {
	mu sync.Mutex
	b  []byte
}

func (k *sink) Write(p []byte) (int, error) {
	k.mu.Lock()
	k.b = append(k.b, p...)
	k.mu.Unlock()
	return len(p), nil
}

// bytes returns a copy of what was written so far.
func (k *sink) bytes() []byte {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]byte(nil), k.b...)
}
